//! Kiln's instruction set and compiled-program format.
//!
//! The compiler (`kiln_compiler`) produces a [`Script`]; the virtual machine
//! (`kiln`) executes it. This crate is the contract between the two and holds
//! no behaviour beyond encoding and printing.
//!
//! # Machine model
//!
//! Kiln is a register machine. Each function activation owns a window of
//! `register_count` registers on the engine's value stack:
//!
//! - `r0` holds the `this` value as passed by the caller (raw: the VM applies
//!   sloppy-mode coercion in [`Instr::LoadThis`], which keeps the result in `r0`).
//! - `r1 ..= rN` hold the formal parameters (`N = param_count`); missing
//!   arguments are `undefined`, extra arguments are only reachable through
//!   [`Instr::CreateArguments`] / [`Instr::CreateRestArray`] /
//!   [`Instr::SuperCallForward`], which must run
//!   before the function's first call instruction.
//! - the remaining registers are locals and temporaries.
//!
//! Variables captured by an inner function live in heap environments instead
//! of registers. [`Instr::PushEnv`] makes a new environment whose parent is
//! the current one; [`Instr::GetEnv`] / [`Instr::SetEnv`] address a slot by
//! `(depth, slot)` where depth 0 is the current environment. The frame tracks
//! its environment depth, so an exception handler can restore it
//! ([`Handler::env_depth`]).
//!
//! Unresolved names and top-level declarations of scripts are globals:
//! [`Instr::GetGlobal`] / [`Instr::SetGlobal`] through a property site whose
//! name is in [`FunctionCode::property_sites`].
//!
//! `try`/`finally` is a finally [`Handler`] plus the completion protocol of
//! [`Instr::EndFinally`] (see [`Completion`]). A scope with `using`
//! declarations is compiled the same way: its resource list lives in a register
//! ([`Instr::AddDisposable`]) and its finally block is [`Instr::DisposeResources`]
//! (in a loop with [`Instr::Await`] for `await using`), which rewrites the
//! completion when a disposal throws.
//!
//! The hole value ([`Instr::LoadHole`]) marks an uninitialised lexical binding
//! (temporal dead zone) and an elided array-literal element; it never escapes
//! to JavaScript.

use std::fmt;

pub mod serial;
mod validate;

pub use validate::{InvalidBytecode, ValidScript, validate};

/// Identifies this instruction set and compiled-program format: a hash of the files that
/// define them (each instruction's operands and semantics here, their encoding in
/// `serial.rs`). Precompiled code carries it and is refused by a Kiln whose format differs.
pub const FORMAT_ID: u64 =
    fnv1a(include_bytes!("lib.rs")) ^ fnv1a(include_bytes!("serial.rs")).rotate_left(1);

const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash = (hash ^ bytes[i] as u64).wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// A register index in the current frame.
pub type Reg = u16;
/// An index into [`FunctionCode::constants`].
pub type ConstIdx = u16;
/// An index into [`FunctionCode::property_sites`]; each names a property and
/// owns one inline cache.
pub type Site = u16;
/// A jump offset relative to the instruction *after* the jump.
pub type Offset = i32;

/// One instruction. Every variant fits in 8 bytes; operands are registers
/// unless their type says otherwise.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Instr {
    // ---- moves and constants ----
    /// `r[dst] = r[src]`
    Mov { dst: Reg, src: Reg },
    /// `r[dst] = constants[idx]` (numbers, strings, BigInts)
    LoadConst { dst: Reg, idx: ConstIdx },
    /// `r[dst] = value`
    LoadInt { dst: Reg, value: i32 },
    /// `r[dst] = undefined`
    LoadUndefined { dst: Reg },
    /// `r[dst] = null`
    LoadNull { dst: Reg },
    /// `r[dst] = true`
    LoadTrue { dst: Reg },
    /// `r[dst] = false`
    LoadFalse { dst: Reg },
    /// `r[dst] = <hole>` (uninitialised binding / elision)
    LoadHole { dst: Reg },
    /// `r[dst] = this` (sloppy functions: undefined/null -> global object, primitives -> wrapper)
    LoadThis { dst: Reg },
    /// `r[dst] = new.target`
    LoadNewTarget { dst: Reg },
    /// `r[dst] = the running function object`
    LoadCallee { dst: Reg },
    /// `r[dst] = the global object`
    LoadGlobalObject { dst: Reg },
    /// `r[dst] = import.meta`
    LoadImportMeta { dst: Reg },
    /// `r[dst] = imported binding [[index]]` of the running module (see
    /// [`ModuleInfo::imports`]): the exporter's live binding; ReferenceError while it is
    /// uninitialised
    GetImport { dst: Reg, index: u16 },

    // ---- environments ----
    /// push a new environment of `size` slots (all holes) whose parent is the current one
    PushEnv { size: u16 },
    /// pop the current environment
    PopEnv,
    /// replace the current environment with a copy of it (per-iteration `let` bindings)
    CloneEnv,
    /// `r[dst] = env(depth)[slot]`
    GetEnv { dst: Reg, depth: u8, slot: u16 },
    /// `r[dst] = env(depth)[slot]`, throwing ReferenceError naming constants[name] if it is the hole
    GetEnvChecked {
        dst: Reg,
        depth: u8,
        slot: u16,
        name: ConstIdx,
    },
    /// `env(depth)[slot] = r[src]`
    SetEnv { src: Reg, depth: u8, slot: u16 },
    /// throw ReferenceError (constants[name] is not initialised) if r[src] is the hole
    ThrowIfHole { src: Reg, name: ConstIdx },
    /// object environment lookup (`with`, eval-declared vars): `r[dst] = env(depth)[slot]` if
    /// that is an object with a binding site.name (HasProperty, not hidden by @@unscopables),
    /// else undefined
    LookupObjectEnv {
        dst: Reg,
        depth: u8,
        slot: u16,
        site: Site,
    },
    /// GetBindingValue of object environment r[obj] (found by LookupObjectEnv): `r[dst] =
    /// r[obj][site.name]` if it still has the property, else undefined (strict: ReferenceError)
    GetBinding { dst: Reg, obj: Reg, site: Site },
    /// SetMutableBinding of object environment r[obj]: `r[obj][site.name] = r[src]`
    /// (strict: ReferenceError if the property is gone, TypeError if the write fails)
    SetBinding { obj: Reg, src: Reg, site: Site },
    /// sloppy direct eval in a function: declare var site.name on the var object in
    /// env(depth)[slot] (created with a null prototype on first use), undefined if absent
    DeclareEvalVar { site: Site, depth: u8, slot: u16 },

    // ---- globals ----
    /// `r[dst] = global binding named by site`; ReferenceError if absent
    GetGlobal { dst: Reg, site: Site },
    /// like GetGlobal but yields undefined for a missing binding (`typeof x`)
    GetGlobalOrUndefined { dst: Reg, site: Site },
    /// assign the global binding named by site (strict mode: ReferenceError if absent)
    SetGlobal { src: Reg, site: Site },
    /// script or global eval code start, before any binding is made: the checks of
    /// GlobalDeclarationInstantiation / EvalDeclarationInstantiation for site.name declared as
    /// `kind` (SyntaxError for a clash with a lexical or restricted global, TypeError where
    /// the global object cannot take the binding)
    CheckGlobalDeclaration { site: Site, kind: GlobalDeclaration },
    /// script start: CreateGlobalVarBinding(site.name, deletable): an undefined global
    /// property unless one exists (`deletable`: declared by eval code)
    DeclareGlobalVar { site: Site, deletable: bool },
    /// CreateGlobalFunctionBinding(site.name, r[src], deletable): (re)define the global
    /// property as the function, then assign it
    DeclareGlobalFunction {
        src: Reg,
        site: Site,
        deletable: bool,
    },
    /// script start: declare a global lexical binding (let/const/class), uninitialised; flag: is const
    DeclareGlobalLexical { site: Site, is_const: bool },
    /// initialise a global lexical binding (the declaration itself executes)
    InitGlobalLexical { src: Reg, site: Site },

    // ---- properties ----
    /// `r[dst] = r[obj][site.name]`
    GetNamed { dst: Reg, obj: Reg, site: Site },
    /// `r[obj][site.name] = r[src]` (strict: throw on failure)
    SetNamed { obj: Reg, src: Reg, site: Site },
    /// `r[dst] = r[obj][r[key]]`
    GetIndex { dst: Reg, obj: Reg, key: Reg },
    /// `r[dst+1] = ToPropertyKey(r[key])`, `r[dst] = r[obj][r[dst+1]]`: the read of `o[k] op= v`
    /// and `o[k]++`, whose write then uses the key converted once
    GetIndexUpdate { dst: Reg, obj: Reg, key: Reg },
    /// `r[obj][r[key]] = r[src]`
    SetIndex { obj: Reg, key: Reg, src: Reg },
    /// CreateDataProperty(r[obj], site.name, r[src]) (object literals, class fields)
    DefineNamed { obj: Reg, src: Reg, site: Site },
    /// CreateDataProperty(r[obj], r[key], r[src])
    DefineIndex { obj: Reg, key: Reg, src: Reg },
    /// define method/accessor r[func] on r[obj] under key r[key]; sets the home object.
    /// `kind`: see [`MethodKind`]; class members are non-enumerable
    DefineMethod {
        obj: Reg,
        key: Reg,
        func: Reg,
        kind: MethodKind,
    },
    /// `r[dst] = delete r[obj][r[key]]` (strict: TypeError on failure)
    Delete { dst: Reg, obj: Reg, key: Reg },
    /// `r[dst] = the [[Prototype]] of the running function's home object` (GetSuperBase, the
    /// base of a `super` reference; may be null)
    LoadSuperBase { dst: Reg },
    /// `r[dst] = r[base][r[key]]` with the current `this` as receiver (`super[k]`, r[base] from
    /// LoadSuperBase; TypeError if it is null)
    GetSuper { dst: Reg, base: Reg, key: Reg },
    /// `r[base][r[key]] = r[src]` with `this` as receiver (strict: throw on failure)
    SetSuper { base: Reg, key: Reg, src: Reg },
    /// `r[dst] = r[obj].#name` where r[key] holds the private name
    GetPrivate { dst: Reg, obj: Reg, key: Reg },
    /// `r[obj].#name = r[src]`
    SetPrivate { obj: Reg, key: Reg, src: Reg },
    /// add private field r[key] = r[src] to r[obj] (a method when `method`: not writable);
    /// TypeError if present or r[obj] is not extensible
    DefinePrivate {
        obj: Reg,
        key: Reg,
        src: Reg,
        method: bool,
    },
    /// add private accessor r[key] to r[obj]: getter r[funcs], setter r[funcs+1] (either may be
    /// undefined); TypeError if present or r[obj] is not extensible
    DefinePrivateAccessor { obj: Reg, key: Reg, funcs: Reg },
    /// `r[dst] = #name in r[obj]`
    HasPrivate { dst: Reg, obj: Reg, key: Reg },
    /// `r[dst] = a new private name described by constants[desc]`
    NewPrivateName { dst: Reg, desc: ConstIdx },

    // ---- object construction ----
    /// `r[dst] = {}` with room for `capacity` named properties (an object literal's
    /// own, so that defining them does not grow its slots again and again)
    NewObject { dst: Reg, capacity: u16 },
    /// `r[obj].[[Prototype]] = r[src]` if r[src] is an object or null, else nothing
    /// (`__proto__: value` in an object literal)
    SetLiteralPrototype { obj: Reg, src: Reg },
    /// `r[dst] = []` with room for `capacity` elements
    NewArray { dst: Reg, capacity: u16 },
    /// append r[src] to array r[arr] (a hole appends an elision)
    ArrayPush { arr: Reg, src: Reg },
    /// append every value of iterable r[src] to array r[arr]
    ArraySpread { arr: Reg, src: Reg },
    /// copy own enumerable properties of r[src] onto r[dst] (object spread)
    CopyDataProperties { dst: Reg, src: Reg },
    /// like CopyDataProperties, excluding the keys in array r[excluded] (object rest)
    CopyDataPropertiesExcept { dst: Reg, src: Reg, excluded: Reg },
    /// `r[dst] = new closure of constants[func]` over the current environment
    Closure { dst: Reg, func: ConstIdx },
    /// create a class: constructor from constants[func], heritage r[heritage] (a hole means
    /// no `extends`); `r[dst] = constructor`, `r[dst+1] = prototype`
    CreateClass {
        dst: Reg,
        func: ConstIdx,
        heritage: Reg,
    },
    /// SetFunctionName(r[func], property key r[key]) unless the function already has a name
    /// (anonymous functions under computed keys)
    SetFunctionName { func: Reg, key: Reg },
    /// make r[obj] the home object of function r[func] (`super` lookups start at its prototype)
    SetHomeObject { func: Reg, obj: Reg },
    /// store closure r[init] as the field initialiser of class constructor r[class]
    SetClassFields { class: Reg, init: Reg },
    /// run the running constructor's field initialiser on `this` (at the start of a base class
    /// constructor, after `super()` in a derived one)
    InitClassFields,
    /// `r[dst] = regexp literal constants[idx]`
    NewRegExp { dst: Reg, idx: ConstIdx },
    /// `r[dst] = the (cached) template object for constants[idx]`
    GetTemplateObject { dst: Reg, idx: ConstIdx },
    /// `r[dst] = arguments object` (mapped onto the parameter environment when `mapped`)
    CreateArguments { dst: Reg, mapped: bool },
    /// `r[dst] = array of the arguments from position `from` (0-based) on
    CreateRestArray { dst: Reg, from: u16 },

    // ---- operators (ToPrimitive/ToNumeric may run JS) ----
    /// `r[dst] = r[lhs] + r[rhs]`
    Add { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] + imm`
    AddImm { dst: Reg, lhs: Reg, imm: i16 },
    /// `r[dst] = r[lhs] - r[rhs]`
    Sub { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] * r[rhs]`
    Mul { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] / r[rhs]`
    Div { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] % r[rhs]`
    Mod { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] ** r[rhs]`
    Exp { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] & r[rhs]`
    BitAnd { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] | r[rhs]`
    BitOr { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] ^ r[rhs]`
    BitXor { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] << r[rhs]`
    Shl { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] >> r[rhs]`
    Shr { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] >>> r[rhs]`
    UShr { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] == r[rhs]`
    Eq { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] != r[rhs]`
    NotEq { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] === r[rhs]`
    StrictEq { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] !== r[rhs]`
    StrictNotEq { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] < r[rhs]`
    Lt { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] <= r[rhs]`
    Le { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] > r[rhs]`
    Gt { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] >= r[rhs]`
    Ge { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] instanceof r[rhs]`
    InstanceOf { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = r[lhs] in r[rhs]`
    In { dst: Reg, lhs: Reg, rhs: Reg },
    /// `r[dst] = -r[src]`
    Neg { dst: Reg, src: Reg },
    /// `r[dst] = ~r[src]`
    BitNot { dst: Reg, src: Reg },
    /// `r[dst] = !r[src]`
    Not { dst: Reg, src: Reg },
    /// `r[dst] = typeof r[src] === name`, `typeof` compared with a string literal
    TypeOfIs { dst: Reg, src: Reg, name: TypeName },
    /// `r[dst] = typeof r[src]`
    TypeOf { dst: Reg, src: Reg },
    /// `r[dst] = ToNumber(r[src])` (unary plus)
    ToNumber { dst: Reg, src: Reg },
    /// `r[dst] = ToNumeric(r[src])` (old value of postfix `++`/`--`)
    ToNumeric { dst: Reg, src: Reg },
    /// `r[dst] = r[src] + 1` on a numeric
    Inc { dst: Reg, src: Reg },
    /// `r[dst] = r[src] - 1` on a numeric
    Dec { dst: Reg, src: Reg },
    /// `r[dst] = ToString(r[src])` (template literal substitutions)
    ToString { dst: Reg, src: Reg },
    /// `r[dst] = ToPropertyKey(r[src])` (computed keys evaluated ahead of their use)
    ToPropertyKey { dst: Reg, src: Reg },
    /// `r[dst] = ToObject(r[src])`; TypeError for undefined/null (destructuring)
    ToObject { dst: Reg, src: Reg },
    /// TypeError unless r[src] is an object (iterator results, derived constructor returns)
    ThrowIfNotObject { src: Reg },

    // ---- control ----
    /// `pc += offset`
    Jump { offset: Offset },
    /// backward jump: `pc += offset`; also a safe point (fuel, interrupt, GC)
    Loop { offset: Offset },
    /// `if ToBoolean(r[src]) pc += offset`
    JumpIfTrue { src: Reg, offset: Offset },
    /// `if !ToBoolean(r[src]) pc += offset`
    JumpIfFalse { src: Reg, offset: Offset },
    /// `if r[src] is undefined or null pc += offset`
    JumpIfNullish { src: Reg, offset: Offset },
    /// `if r[src] is not undefined or null pc += offset`
    JumpIfNotNullish { src: Reg, offset: Offset },
    /// `if r[src] is undefined pc += offset`
    JumpIfUndefined { src: Reg, offset: Offset },
    /// `if r[src] is not undefined pc += offset`
    JumpIfNotUndefined { src: Reg, offset: Offset },
    /// `if r[src] is the hole pc += offset`
    JumpIfHole { src: Reg, offset: Offset },
    /// a `switch` whose case tests are all int32 literals: if r[src] is strictly equal to
    /// one of `switch_tables[table]`'s values, `pc` = that case's target; else on
    SwitchInt { src: Reg, table: u16 },
    /// throw r[src]
    Throw { src: Reg },
    /// throw a new error of `kind` with message constants[msg]
    ThrowError { kind: ErrorKind, msg: ConstIdx },
    /// return r[src]
    Return { src: Reg },
    /// return undefined
    ReturnUndefined,
    /// derived constructor return: r[src] if it is an object; the frame's `this` if r[src] is
    /// undefined (ReferenceError if `super()` was never called); TypeError otherwise
    ReturnDerived { src: Reg },
    /// end of a `finally` block entered with completion r[kind], r[kind+1]: rethrow,
    /// return, or fall through (see [`Completion`])
    EndFinally { kind: Reg },

    // ---- calls ----
    /// `r[dst] = r[func].call(r[args], r[args+1], ..., r[args+argc])`
    Call {
        dst: Reg,
        func: Reg,
        args: Reg,
        argc: u8,
    },
    /// `r[dst] = r[func](r[args+1], ..., r[args+argc])` with `this` undefined, a call of
    /// a callee that is not a property (r[args] is not read)
    CallNoThis {
        dst: Reg,
        func: Reg,
        args: Reg,
        argc: u8,
    },
    /// like Call, but the current frame is replaced (strict-mode tail position)
    TailCall { func: Reg, args: Reg, argc: u8 },
    /// `r[dst] = r[func].apply(r[args], array r[args+1])`
    CallSpread { dst: Reg, func: Reg, args: Reg },
    /// `r[dst] = new r[func](r[args+1], ..., r[args+argc])` (r[args] is scratch)
    New {
        dst: Reg,
        func: Reg,
        args: Reg,
        argc: u8,
    },
    /// `r[dst] = new r[func](...array r[args+1])`
    NewSpread { dst: Reg, func: Reg, args: Reg },
    /// `r[dst] = super(r[args+1], ..., r[args+argc])`; binds `this` (field initialisers run
    /// in the InitClassFields that follows)
    SuperCall { dst: Reg, args: Reg, argc: u8 },
    /// `r[dst] = super(...array r[args+1])`
    SuperCallSpread { dst: Reg, args: Reg },
    /// `r[dst] = super(...)` with the arguments this frame was called with, as they are (a
    /// default derived constructor: no iteration)
    SuperCallForward { dst: Reg },
    /// `super(...)` from an arrow or eval: constructs the parent of constructor r[func] with
    /// new.target r[func+1] and arguments r[args+1 ..= args+argc] (argc 255: array r[args+1]);
    /// ReferenceError if r[func+2] (the `this` binding) is not the hole; runs field
    /// initialisers; `r[dst] = this`
    SuperCallFrom {
        dst: Reg,
        func: Reg,
        args: Reg,
        argc: u8,
    },
    /// `r[dst] = eval(r[args+1], ...)` when r[func] is the realm's %eval%, else an ordinary call
    /// (argc 255: `eval(...array r[args+1])`)
    CallEval {
        dst: Reg,
        func: Reg,
        args: Reg,
        argc: u8,
    },

    // ---- iteration ----
    /// `r[iter] = GetIterator(r[src])`, `r[iter+1] = its next method`
    GetIterator { iter: Reg, src: Reg },
    /// `r[iter]`, `r[iter+1]` = GetIterator(r[src], async)
    GetAsyncIterator { iter: Reg, src: Reg },
    /// step iterator r[iter]: `r[dst] = value`, `r[dst+1] = done`
    IteratorNext { dst: Reg, iter: Reg },
    /// IteratorClose(r[iter]) on a normal exit (calls `return` if present)
    IteratorClose { iter: Reg },
    /// IteratorClose(r[iter]) on a throw exit: calls `return` if present, ignoring its errors and result
    IteratorCloseOnThrow { iter: Reg },
    /// `r[dst] = a for-in key iterator over r[src]`
    ForInPrepare { dst: Reg, src: Reg },
    /// `r[dst] = next for-in key of r[iter]`, `r[dst+1] = done`
    ForInNext { dst: Reg, iter: Reg },

    // ---- explicit resource management (`using`, `await using`) ----
    /// AddDisposableResource(r[list], r[src], sync or async hint): r[list] is the scope's
    /// resource list, created here on first use (undefined until then); null and undefined
    /// are skipped (`await using` records them, so that disposal still awaits); TypeError for
    /// another non-object or a missing dispose method
    AddDisposable { list: Reg, src: Reg, is_async: bool },
    /// DisposeResources(r[list], completion r[kind], r[kind+1]) (r[list] undefined: nothing to
    /// dispose): calls the dispose methods in reverse order, folding each throw into the
    /// completion (a throw on top of a throw becomes a SuppressedError); stops at the first
    /// disposal to await with `r[dst] = the value to await`, else `r[dst] = <hole>` once the
    /// list is empty
    DisposeResources { dst: Reg, list: Reg, kind: Reg },
    /// fold exception r[src] into the completion r[kind], r[kind+1] as DisposeResources does
    /// (an awaited disposal that rejected)
    SuppressError { kind: Reg, src: Reg },

    // ---- generators and async functions ----
    /// suspend a fresh generator after parameter initialisation; the call returns the generator
    InitialYield,
    /// yield r[src]; on resumption `r[dst] = sent value` (throw/return resumptions unwind)
    Yield { dst: Reg, src: Reg },
    /// await r[src]; on resumption `r[dst] = fulfilled value` (rejection throws)
    Await { dst: Reg, src: Reg },
    /// `yield*`: forward each resumption of this generator (next/throw/return) to iterator
    /// r[iter] and yield its result objects as they are; the instruction re-executes on every
    /// resumption until the inner iterator is done, then `r[dst] = the final value`
    YieldDelegate { dst: Reg, iter: Reg },
    /// `yield*` in an async generator: like `YieldDelegate` over the async iterator r[iter]
    /// (next method r[iter+1]), awaiting each inner result and yielding its value; r[iter+2]
    /// holds which await the instruction is suspended in across resumptions
    YieldDelegateAsync { dst: Reg, iter: Reg },

    // ---- miscellany ----
    /// `debugger` statement: no effect
    Debugger,
    /// dynamic `import(r[src], r[src+1])` (specifier, options or undefined): `r[dst] = promise`;
    /// `source`: `import.source(...)`, which no source text module supports
    ImportDynamic { dst: Reg, src: Reg, source: bool },
}

/// What `typeof` answers, for [`Instr::TypeOfIs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeName {
    Undefined,
    Object,
    Boolean,
    Number,
    String,
    Symbol,
    BigInt,
    Function,
}

impl TypeName {
    /// The `typeof` answer named `name`, if `typeof` can give it.
    pub fn from_name(name: &str) -> Option<TypeName> {
        Some(match name {
            "undefined" => TypeName::Undefined,
            "object" => TypeName::Object,
            "boolean" => TypeName::Boolean,
            "number" => TypeName::Number,
            "string" => TypeName::String,
            "symbol" => TypeName::Symbol,
            "bigint" => TypeName::BigInt,
            "function" => TypeName::Function,
            _ => return None,
        })
    }
}

/// How [`Instr::DefineMethod`] installs a function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodKind {
    /// object-literal method: enumerable data property
    ObjectMethod,
    /// object-literal getter: enumerable
    ObjectGetter,
    /// object-literal setter: enumerable
    ObjectSetter,
    /// class method: non-enumerable data property
    ClassMethod,
    /// class getter: non-enumerable
    ClassGetter,
    /// class setter: non-enumerable
    ClassSetter,
}

/// What a name of [`Instr::CheckGlobalDeclaration`] is declared as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GlobalDeclaration {
    /// let, const, class
    Lexical,
    Var,
    Function,
}

/// The error constructors a [`Instr::ThrowError`] can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    TypeError,
    ReferenceError,
    SyntaxError,
    RangeError,
}

/// Completion kinds stored in the `kind` register of a `finally` block.
///
/// The block is entered with `r[kind] = Completion as i32` and `r[kind+1]` the
/// value. [`Instr::EndFinally`] rethrows a `Throw`, returns a `Return`, and
/// falls through otherwise; the compiler encodes `break`/`continue` through a
/// finally as `Jump(n)` values `>= Completion::Jump` and dispatches on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum Completion {
    Normal = 0,
    Throw = 1,
    Return = 2,
    /// `Jump + n` is the n-th break/continue target leaving the try statement
    Jump = 3,
}

/// A constant referenced by [`Instr::LoadConst`] and friends.
#[derive(Clone, Debug, PartialEq)]
pub enum Constant {
    Number(f64),
    /// a string as UTF-16 code units (lone surrogates are legal)
    String(Vec<u16>),
    /// a BigInt literal as decimal digits with optional leading `-`
    BigInt(String),
    /// index into [`Script::functions`]
    Function(u32),
    RegExp {
        pattern: Vec<u16>,
        flags: String,
    },
    /// a tagged template's strings: cooked (None where invalid escape) and raw
    Template {
        cooked: Vec<Option<Vec<u16>>>,
        raw: Vec<Vec<u16>>,
    },
    /// the static scope at a direct-eval call site (see [`EvalScope`]); never loaded
    EvalScope(Box<EvalScope>),
}

/// What a direct `eval` can see at one [`Instr::CallEval`] site: the compile-time shape of
/// the environment chain the frame has at that instruction. The VM hands it to the compiler
/// together with the frame's current environment; `(depth, slot)` pairs count from that
/// environment (depth 0) outwards, exactly like [`Instr::GetEnv`].
#[derive(Clone, Debug, PartialEq, Default)]
pub struct EvalScope {
    /// index of the CallEval instruction this scope belongs to
    pub pc: u32,
    /// the environments from depth 0 outwards
    pub envs: Vec<EvalEnv>,
    /// the caller is a function (or function-like) rather than global code
    pub in_function: bool,
    /// depth of the caller's variable environment (its function's top environment) and the
    /// slot there holding the object of vars that sloppy evals add (None: global code, or
    /// strict caller)
    pub var_object: Option<(u16, u16)>,
    /// where the caller's `this`, `new.target`, `arguments` live (None: global `this` /
    /// no `new.target` / no arguments object)
    pub this: Option<(u16, u16)>,
    /// `this` may be uninitialised (derived constructor before `super()`)
    pub this_checked: bool,
    pub new_target: Option<(u16, u16)>,
    pub arguments: Option<(u16, u16)>,
    /// `super.x` is allowed (the caller has a home object)
    pub super_property: bool,
    /// `super()` is allowed: the slot holding the derived constructor function (its
    /// `new.target` and `this` are in `new_target` / `this`)
    pub super_call: Option<(u16, u16)>,
    /// the caller is a class field initialiser (`arguments` is a SyntaxError)
    pub in_field_initializer: bool,
    /// the call is in a parameter initialiser of the caller (of an arrow when
    /// `in_arrow_parameters`): `var arguments` is a SyntaxError for non-arrows, and the
    /// function body's lexical declarations are not in scope
    pub in_parameters: bool,
    pub in_arrow_parameters: bool,
    /// in parameters: the names the parameter list binds (a var of eval code may not take
    /// one: they live in an environment between the eval and its variable environment)
    pub parameter_names: Vec<String>,
    /// the private names of the enclosing class bodies, innermost first: the name without
    /// `#` and the `(depth, slot)` holding its key
    pub private_names: Vec<(String, u16, u16)>,
}

/// One environment of an [`EvalScope`].
#[derive(Clone, Debug, PartialEq, Default)]
pub struct EvalEnv {
    pub bindings: Vec<EvalBinding>,
}

/// A named slot of an [`EvalEnv`].
#[derive(Clone, Debug, PartialEq)]
pub struct EvalBinding {
    pub name: String,
    pub slot: u16,
    pub kind: EvalBindingKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalBindingKind {
    /// var, parameter, function: assignable, never in the temporal dead zone
    Var,
    /// let/class: assignable after initialisation
    Let,
    /// const: not assignable
    Const,
    /// a function expression's own name: assignment is ignored (TypeError in strict code)
    SelfName,
    /// the slot holds a `with` object, whose properties are bindings and which is the
    /// `this` of a plain call to a function found on it; `name` is empty
    Object,
    /// the slot holds a function's var object: the vars sloppy direct evals added to it, as
    /// properties. A declarative environment in the specification, so a plain call to a
    /// function found there gets an undefined `this`; `name` is empty
    VarObject,
}

impl EvalBindingKind {
    /// The slot holds an object whose properties are bindings (a `with` or a var object).
    pub fn is_object(self) -> bool {
        matches!(self, EvalBindingKind::Object | EvalBindingKind::VarObject)
    }
}

/// An exception handler: covers `start..end` (instruction indices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handler {
    pub start: u32,
    pub end: u32,
    pub target: u32,
    /// the frame's environment depth to restore before jumping to `target`
    pub env_depth: u16,
    /// catch: the exception goes to `r[reg]`. finally: `r[reg] = Completion::Throw`,
    /// `r[reg+1] = exception`
    pub reg: Reg,
    pub is_finally: bool,
}

/// What kind of function a [`FunctionCode`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunctionKind {
    /// `function` declaration or expression: callable and constructible
    Normal,
    Arrow,
    /// object or class method, getter or setter: not constructible
    Method,
    ClassConstructor,
    DerivedConstructor,
    Generator,
    Async,
    AsyncArrow,
    AsyncGenerator,
    /// top-level code of a script, module or eval
    Script,
}

impl FunctionKind {
    pub fn is_constructor(self) -> bool {
        matches!(
            self,
            Self::Normal | Self::ClassConstructor | Self::DerivedConstructor
        )
    }
    pub fn is_generator(self) -> bool {
        matches!(self, Self::Generator | Self::AsyncGenerator)
    }
    pub fn is_async(self) -> bool {
        matches!(self, Self::Async | Self::AsyncArrow | Self::AsyncGenerator)
    }
    pub fn is_arrow(self) -> bool {
        matches!(self, Self::Arrow | Self::AsyncArrow)
    }
    pub fn is_class_constructor(self) -> bool {
        matches!(self, Self::ClassConstructor | Self::DerivedConstructor)
    }
}

/// One compiled function (or the top level of a script).
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionCode {
    /// the function's `name` property as UTF-16 (may be empty)
    pub name: Vec<u16>,
    pub kind: FunctionKind,
    pub strict: bool,
    /// the function's `length` property: parameters before the first default/rest
    pub length: u32,
    /// number of formal parameter registers `r1 ..= r{param_count}`
    pub param_count: u16,
    pub register_count: u16,
    pub instructions: Vec<Instr>,
    pub constants: Vec<Constant>,
    /// property names (UTF-16) of the inline-cached sites
    pub property_sites: Vec<Vec<u16>>,
    pub handlers: Vec<Handler>,
    /// the case tables of `SwitchInt` instructions
    pub switch_tables: Vec<SwitchTable>,
    /// `(instruction index, source byte offset)`, sorted by index: the source position of the
    /// instructions from that index on
    pub positions: Vec<(u32, u32)>,
    /// source byte range of the function (for `Function.prototype.toString`)
    pub source_start: u32,
    pub source_end: u32,
}

/// Where a `switch` over int32 case values goes, for
/// [`Instr::SwitchInt`]: a lookup in place of testing each case in turn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SwitchTable {
    /// `(case value, instruction index of its body)`, sorted by value, each value once
    /// (the first case that tests it, as the tests in order would find)
    pub cases: Vec<(i32, u32)>,
}

impl SwitchTable {
    /// The body of the case strictly equal to `value`, if one is.
    #[inline]
    pub fn target(&self, value: i32) -> Option<u32> {
        self.cases
            .binary_search_by_key(&value, |&(v, _)| v)
            .ok()
            .map(|i| self.cases[i].1)
    }
}

impl FunctionCode {
    /// The source byte offset of the instruction at `pc`.
    pub fn position_of(&self, pc: usize) -> Option<u32> {
        let i = self.positions.partition_point(|&(at, _)| at as usize <= pc);
        i.checked_sub(1).map(|i| self.positions[i].1)
    }
}

/// Whether a [`Script`] is a classic script, a module, eval code, or an agent script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScriptKind {
    Script,
    Module,
    Eval,
    /// A script run as the body of an async function: strict, top-level `await` and
    /// `return` allowed, its declarations local to the execution; the result is the
    /// returned value, or the completion value of the body when nothing returns.
    Agent,
}

/// A compiled script or module: every function of it, top level first.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    pub kind: ScriptKind,
    /// `functions[0]` is the top-level code
    pub functions: Vec<FunctionCode>,
    pub source: String,
    /// the name to show in stack traces (a path, `<eval>`, ...)
    pub source_name: String,
    /// modules: their imports and exports
    pub module: Option<Box<ModuleInfo>>,
}

/// What a module imports and exports
/// ([Source Text Module Records](https://tc39.es/ecma262/#sec-source-text-module-records)).
///
/// A module's top-level bindings all live in one environment, the *module environment*,
/// which the VM creates when it links the module; `slot`s below index it. Functions[0]
/// is the body; `init_function` runs at link time with the module environment to
/// instantiate hoisted function declarations (so a cycle can call them early).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModuleInfo {
    /// the requested modules in source order, deduplicated
    pub requests: Vec<ModuleRequest>,
    /// named imports (`import {a as b}`, `import d`), read with [`Instr::GetImport`] by index
    pub imports: Vec<ImportEntry>,
    /// `import * as ns`: (request index, slot) filled with the namespace at link time
    pub namespace_imports: Vec<(u16, u16)>,
    /// `export`s of the module's own bindings: (export name, slot)
    pub local_exports: Vec<(String, u16)>,
    /// `export {a as b} from`, `export * as ns from`, and re-exports of imports
    pub indirect_exports: Vec<IndirectExport>,
    /// `export * from`: request indices
    pub star_exports: Vec<u16>,
    /// slots of the module environment
    pub env_size: u16,
    /// index into [`Script::functions`] of the link-time initialiser
    pub init_function: u32,
    /// the body contains a top-level `await` (functions[0] is then an async function)
    pub has_top_level_await: bool,
}

/// One `from "specifier" with { key: "value" }`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModuleRequest {
    pub specifier: String,
    pub attributes: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ImportEntry {
    /// index into [`ModuleInfo::requests`]
    pub request: u16,
    pub import_name: String,
    /// the local name (for error messages)
    pub local_name: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct IndirectExport {
    pub export_name: String,
    pub request: u16,
    /// None: `export * as name from` (the requested module's namespace)
    pub import_name: Option<String>,
}

impl fmt::Display for FunctionCode {
    /// A readable listing, one instruction per line (the disassembler).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "function {:?} ({:?}, strict={}, params={}, registers={})",
            String::from_utf16_lossy(&self.name),
            self.kind,
            self.strict,
            self.param_count,
            self.register_count
        )?;
        for (pc, instr) in self.instructions.iter().enumerate() {
            writeln!(f, "  {pc:4}  {instr:?}")?;
        }
        for (i, c) in self.constants.iter().enumerate() {
            match c {
                Constant::String(s) => {
                    writeln!(f, "  const {i}: {:?}", String::from_utf16_lossy(s))?
                }
                other => writeln!(f, "  const {i}: {other:?}")?,
            }
        }
        for (i, s) in self.property_sites.iter().enumerate() {
            writeln!(f, "  site {i}: {:?}", String::from_utf16_lossy(s))?;
        }
        for h in &self.handlers {
            writeln!(f, "  handler {h:?}")?;
        }
        for (i, t) in self.switch_tables.iter().enumerate() {
            writeln!(f, "  switch {i}: {:?}", t.cases)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_fit_in_eight_bytes() {
        assert!(
            std::mem::size_of::<Instr>() <= 8,
            "Instr is {} bytes",
            std::mem::size_of::<Instr>()
        );
    }

    #[test]
    fn position_lookup_finds_the_covering_entry() {
        let code = FunctionCode {
            name: vec![],
            kind: FunctionKind::Script,
            strict: false,
            length: 0,
            param_count: 0,
            register_count: 1,
            instructions: vec![Instr::ReturnUndefined; 5],
            constants: vec![],
            property_sites: vec![],
            handlers: vec![],
            switch_tables: vec![],
            positions: vec![(0, 10), (3, 42)],
            source_start: 0,
            source_end: 0,
        };
        assert_eq!(code.position_of(0), Some(10));
        assert_eq!(code.position_of(2), Some(10));
        assert_eq!(code.position_of(3), Some(42));
        assert_eq!(code.position_of(4), Some(42));
    }
}
