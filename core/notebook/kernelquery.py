# What Ferry asks a notebook's kernel after a cell (core/notebook/kernelquery.h): the names cells
# bind and read, by Python's own `ast`, and the user's variables. It runs inside the kernel, from
# one user expression of a silent execute_request, exec()'d in a fresh dict: it binds nothing in
# the user's namespace and imports nothing the kernel had not (numpy, pandas and torch are looked
# up in sys.modules, never imported). The standard library only, Python 3.8 or later.
import ast
import base64
import json
import sys


class _Scope(object):
    def __init__(self, kind, bound=()):
        self.kind = kind  # 'module', 'function', 'class' or 'comprehension'
        # Names local to the scope: a function's, every name it binds anywhere (Python decides
        # that before it runs); a class's or a comprehension's, those bound so far.
        self.bound = set(bound)
        self.globals = set()  # declared `global` in a function


class _FunctionLocals(ast.NodeVisitor):
    """The names a function's body binds (its locals), not descending into nested scopes."""

    def __init__(self, scope):
        self.scope = scope
        self.nonlocals = set()

    def visit_Name(self, node):
        if not isinstance(node.ctx, ast.Load):
            self.scope.bound.add(node.id)

    def _nested(self, node, name=None):
        if name:
            self.scope.bound.add(name)
        for child in getattr(node, 'decorator_list', []) + getattr(node, 'bases', []):
            self.visit(child)

    def visit_FunctionDef(self, node):
        self._nested(node, node.name)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._nested(node, node.name)

    def visit_Lambda(self, node):
        pass

    def _comprehension(self, node):
        # Its targets are its own; a walrus in it binds in the function.
        for inner in ast.walk(node):
            if isinstance(inner, getattr(ast, 'NamedExpr', ())) and isinstance(inner.target, ast.Name):
                self.scope.bound.add(inner.target.id)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Import(self, node):
        for alias in node.names:
            self.scope.bound.add(_import_name(alias))

    visit_ImportFrom = visit_Import

    def visit_Global(self, node):
        self.scope.globals.update(node.names)

    def visit_Nonlocal(self, node):
        self.nonlocals.update(node.names)

    def visit_ExceptHandler(self, node):
        if node.name:
            self.scope.bound.add(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node):
        if node.name:
            self.scope.bound.add(node.name)
        self.generic_visit(node)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node):
        if node.rest:
            self.scope.bound.add(node.rest)
        self.generic_visit(node)


def _import_name(alias):
    if alias.name == '*':
        return '*'
    return alias.asname or alias.name.split('.')[0]


def _parameters(args):
    names = [a.arg for a in getattr(args, 'posonlyargs', []) + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


class _CellNames(ast.NodeVisitor):
    """Walks a cell in the order Python evaluates it, scope by scope."""

    def __init__(self):
        self.defines = []
        self.reads = []
        self._bound = set()  # names the cell bound so far at the top level
        self._late = []  # global names used in function bodies: read when the function runs
        self._scopes = [_Scope('module')]

    # --- names
    def _define(self, name):
        self._bound.add(name)
        if name not in self.defines and name != '*':
            self.defines.append(name)

    def _load(self, name):
        innermost = True
        for scope in reversed(self._scopes):
            if scope.kind == 'module':
                break
            # A class body's names are seen in it, not in the scopes nested in it.
            if scope.kind == 'class' and not innermost:
                continue
            innermost = False
            if name in scope.globals:
                break
            if name in scope.bound:
                return
        if any(scope.kind == 'function' for scope in self._scopes):
            self._late.append(name)
        elif name not in self._bound and name not in self.reads:
            self.reads.append(name)

    def _bind(self, name, scope=None):
        scope = scope or self._scopes[-1]
        if scope.kind == 'module' or name in scope.globals:
            self._define(name)
        elif scope.kind != 'function':  # a function's locals are known before it runs
            scope.bound.add(name)

    def finish(self):
        for name in self._late:
            if name not in self._bound and name not in self.reads:
                self.reads.append(name)

    # --- what binds
    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self._load(node.id)
        elif isinstance(node.ctx, ast.Del):  # the name's value changes: read, then bound again
            self._load(node.id)
            self._bind(node.id)
        else:
            self._bind(node.id)

    def visit_Assign(self, node):
        self.visit(node.value)
        for target in node.targets:
            self.visit(target)

    def visit_AugAssign(self, node):
        if isinstance(node.target, ast.Name):
            self._load(node.target.id)
            self.visit(node.value)
            self._bind(node.target.id)
        else:
            self.visit(node.target)
            self.visit(node.value)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.annotation)
        if not isinstance(node.target, ast.Name):
            self.visit(node.target)
        elif node.value is not None:  # `x: int` alone binds nothing
            self._bind(node.target.id)

    def visit_NamedExpr(self, node):
        self.visit(node.value)
        scope = next(s for s in reversed(self._scopes) if s.kind != 'comprehension')
        self._bind(node.target.id, scope)

    def _loop(self, node):
        self.visit(node.iter)
        self.visit(node.target)
        for statement in node.body + node.orelse:
            self.visit(statement)

    visit_For = visit_AsyncFor = _loop

    def _with(self, node):
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self.visit(item.optional_vars)
        for statement in node.body:
            self.visit(statement)

    visit_With = visit_AsyncWith = _with

    def visit_Import(self, node):
        for alias in node.names:
            self._bind(_import_name(alias))

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node):
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self._bind(node.name)
        for statement in node.body:
            self.visit(statement)

    def visit_MatchAs(self, node):
        if node.pattern is not None:
            self.visit(node.pattern)
        if node.name:
            self._bind(node.name)

    def visit_MatchStar(self, node):
        if node.name:
            self._bind(node.name)

    def visit_MatchMapping(self, node):
        self.generic_visit(node)
        if node.rest:
            self._bind(node.rest)

    # --- scopes
    def _function(self, node, body):
        scope = _Scope('function', _parameters(node.args))
        finder = _FunctionLocals(scope)
        for statement in body:
            finder.visit(statement)
        scope.bound -= scope.globals | finder.nonlocals
        self._scopes.append(scope)
        for statement in body:
            self.visit(statement)
        self._scopes.pop()

    def _arguments(self, args, annotations):
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(default)
        if annotations:
            every = getattr(args, 'posonlyargs', []) + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            for a in every:
                if a is not None and a.annotation is not None:
                    self.visit(a.annotation)

    def visit_FunctionDef(self, node):
        for decorator in node.decorator_list:
            self.visit(decorator)
        self._arguments(node.args, True)
        if node.returns is not None:
            self.visit(node.returns)
        self._bind(node.name)
        self._function(node, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._arguments(node.args, False)
        self._function(node, [node.body])

    def visit_ClassDef(self, node):
        for child in node.decorator_list + node.bases + [k.value for k in node.keywords]:
            self.visit(child)
        self._scopes.append(_Scope('class'))
        for statement in node.body:
            self.visit(statement)
        self._scopes.pop()
        self._bind(node.name)

    def _comprehension(self, node):
        # The first iterable is evaluated where the comprehension is; the rest in its own scope.
        self.visit(node.generators[0].iter)
        self._scopes.append(_Scope('comprehension'))
        for index, generator in enumerate(node.generators):
            if index:
                self.visit(generator.iter)
            self.visit(generator.target)
            for condition in generator.ifs:
                self.visit(condition)
        for part in ('key', 'value', 'elt'):
            if hasattr(node, part):
                self.visit(getattr(node, part))
        self._scopes.pop()

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


def cell_names(source):
    """What a cell binds at the top level (`defines`) and uses before it binds it (`reads`)."""
    flags = ast.PyCF_ONLY_AST | getattr(ast, 'PyCF_ALLOW_TOP_LEVEL_AWAIT', 0)
    try:
        tree = compile(source, '<cell>', 'exec', flags, dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return {'defines': [], 'reads': [], 'error': '%s: %s' % (type(error).__name__, error)}
    visitor = _CellNames()
    for statement in tree.body:
        visitor.visit(statement)
    visitor.finish()
    return {'defines': visitor.defines, 'reads': visitor.reads}


def _type_name(t):
    module = getattr(t, '__module__', None) or ''
    name = getattr(t, '__name__', '?')
    if module in ('builtins', '__main__'):
        return name
    return module.split('.')[0] + '.' + name


def _describe(name, value, numpy, pandas, torch, sized):
    entry = {'name': name, 'type': _type_name(type(value))}
    try:
        if numpy is not None and isinstance(value, numpy.ndarray):
            entry.update(shape=list(value.shape), dtype=str(value.dtype), bytes=int(value.nbytes))
        elif numpy is not None and isinstance(value, numpy.generic):
            entry.update(dtype=str(value.dtype), bytes=int(value.nbytes), value=repr(value.item())[:80])
        elif torch is not None and isinstance(value, torch.Tensor):
            entry.update(shape=list(value.shape), dtype=str(value.dtype).replace('torch.', ''),
                         bytes=int(value.element_size() * value.nelement()))
        elif pandas is not None and isinstance(value, pandas.DataFrame):
            entry.update(shape=list(value.shape), bytes=int(value.memory_usage(index=True, deep=False).sum()))
        elif pandas is not None and isinstance(value, pandas.Series):
            entry.update(shape=list(value.shape), dtype=str(value.dtype),
                         bytes=int(value.memory_usage(index=True, deep=False)))
        else:
            # len() of the built-in containers only: on any other object it may run the user's code.
            if isinstance(value, sized):
                entry['length'] = len(value)
            entry['bytes'] = sys.getsizeof(value)  # the object itself, not what it refers to
            kind = type(value)
            if kind in (bool, float, complex, type(None)) or (kind is int and value.bit_length() <= 200):
                entry['value'] = repr(value)
            elif kind is str:
                entry['value'] = repr(value[:60]) + ('\u2026' if len(value) > 60 else '')
    except Exception:  # an object that fails to say its shape still has a name and a type
        pass
    return entry


def variables(namespace, most):
    """The user's variables (not modules, functions, classes, IPython's own, `_` names): at most
    `most` described, and how many there are."""
    modules = sys.modules
    hidden = {}
    try:
        shell = modules['IPython'].get_ipython() if 'IPython' in modules else None
        hidden = shell.user_ns_hidden if shell is not None else {}
    except Exception:
        hidden = {}
    skip = (type, type(sys), type(variables), type(len), type(_Scope('module').__init__))
    sized = (list, tuple, dict, set, frozenset, str, bytes, bytearray, range)
    deque = getattr(modules.get('collections'), 'deque', None)
    if deque is not None:
        sized += (deque,)
    found = []
    count = 0
    for name, value in list(namespace.items()):
        if name.startswith('_') or (name in hidden and hidden[name] is value) or isinstance(value, skip):
            continue
        count += 1
        if len(found) < most:
            found.append(_describe(name, value, modules.get('numpy'), modules.get('pandas'), modules.get('torch'),
                                   sized))
    return found, count


class _Answer(object):
    """What the user expression evaluates to: IPython sends _repr_json_ as application/json."""

    def __init__(self, value):
        self.value = value

    def _repr_json_(self):
        return self.value

    def __repr__(self):
        return '<ferry kernel query>'


def query(namespace, request):
    """`request`: base64 of {"sources": [...], "variables": bool, "most": int} as JSON."""
    asked = json.loads(base64.b64decode(request).decode('utf-8'))
    answer = {'cells': [cell_names(source) for source in asked.get('sources', [])]}
    if asked.get('variables'):
        answer['variables'], answer['count'] = variables(namespace, int(asked.get('most', 5000)))
    return _Answer(answer)
