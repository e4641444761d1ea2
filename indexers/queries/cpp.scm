; C++: C's definitions plus classes, namespaces and qualified (out-of-class) method definitions.
(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)) @definition.function
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier)] @name))) @definition.function
(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier)] @name))) @definition.function
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(namespace_definition name: (namespace_identifier) @name) @definition.module

(call_expression function: (identifier) @reference.call)
(call_expression function: (field_expression field: (field_identifier) @reference.call))
(call_expression function: (qualified_identifier name: (identifier) @reference.call))
(call_expression function: (qualified_identifier name: (qualified_identifier name: (identifier) @reference.call)))
(call_expression function: (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: (identifier) @reference.call))))
(type_identifier) @reference.type
(field_expression field: (field_identifier) @reference.attribute)

(preproc_include) @import
