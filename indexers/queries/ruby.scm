; Ruby: classes, modules, methods, calls, require.
(class name: [(constant) (scope_resolution)] @name) @definition.class
(module name: [(constant) (scope_resolution)] @name) @definition.module
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.function

(call method: (identifier) @reference.call)
(superclass (constant) @reference.type)

(call
  method: (identifier) @_require
  arguments: (argument_list . (string) @import.require)
  (#match? @_require "^require"))
