; Kotlin (the grammar has few field names, so patterns are positional): classes, interfaces and
; objects, functions, calls, user types, imports.
(class_declaration (type_identifier) @name) @definition.class
(object_declaration (type_identifier) @name) @definition.class
(function_declaration (simple_identifier) @name) @definition.function

(call_expression (simple_identifier) @reference.call)
(call_expression (navigation_expression (navigation_suffix (simple_identifier) @reference.call)))
(user_type (type_identifier) @reference.type)

(import_header) @import
