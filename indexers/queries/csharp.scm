; C#: types, namespaces, methods and constructors, calls, object creation, base types, usings.
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.module
(method_declaration name: (identifier) @name) @definition.function
(constructor_declaration name: (identifier) @name) @definition.function

(invocation_expression function: (identifier) @reference.call)
(invocation_expression function: (member_access_expression name: (identifier) @reference.call))
(object_creation_expression type: (identifier) @reference.call)
(base_list (identifier) @reference.type)
(member_access_expression name: (identifier) @reference.attribute)

(using_directive) @import
