; Python: definitions, calls, type references, imports.
; Captures: @definition.<kind> + @name; @reference.<kind>; @import (statement, parsed in code).
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function

(call function: (identifier) @reference.call)
(call function: (attribute attribute: (identifier) @reference.call))
(class_definition superclasses: (argument_list (identifier) @reference.type))
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @reference.type)))
(type (identifier) @reference.type)
(type (attribute attribute: (identifier) @reference.type))
(except_clause value: [
  (identifier) @reference.type
  (tuple (identifier) @reference.type)
  (as_pattern . (identifier) @reference.type)
  (as_pattern . (tuple (identifier) @reference.type))
])
(decorator (identifier) @reference.name)
(decorator (attribute attribute: (identifier) @reference.name))
(attribute attribute: (identifier) @reference.attribute)

(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import
