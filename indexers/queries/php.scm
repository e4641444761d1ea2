; PHP: classes, interfaces, traits, enums, functions and methods, calls, use / require.
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.interface
(enum_declaration name: (name) @name) @definition.enum
(function_definition name: (name) @name) @definition.function
(method_declaration name: (name) @name) @definition.function

(function_call_expression function: (name) @reference.call)
(function_call_expression function: (qualified_name (name) @reference.call))
(member_call_expression name: (name) @reference.call)
(scoped_call_expression name: (name) @reference.call)
(object_creation_expression (name) @reference.call)
(base_clause (name) @reference.type)
(class_interface_clause (name) @reference.type)
(member_access_expression name: (name) @reference.attribute)

(namespace_use_clause) @import
(require_expression (_) @import.require)
(require_once_expression (_) @import.require)
(include_expression (_) @import.require)
(include_once_expression (_) @import.require)
(nullsafe_member_call_expression name: (name) @reference.call)
