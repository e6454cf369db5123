//! The same generated program on Kiln and on QuickJS-NG prints the same lines.
//!
//! The fuzzer's bytes choose a small program (`Program`, built with `arbitrary`):
//! variables, functions, loops, `try`, objects, arrays, strings, number formatting,
//! regular expressions, JSON, `Math`, promise jobs, and calls of the built-ins on them.
//! It is rendered as mostly valid, deterministic JavaScript: each top-level statement
//! is wrapped in `try`, values are printed through one `show` function both engines
//! run (`PRELUDE`), errors are shown by their constructor's name only, and a function
//! can call only functions defined before it, so nothing recurses.
//!
//! What the comparison leaves out, and why, is listed in `docs/sandbox.md`
//! ("Fuzzing"): runs that either engine stops on a budget (Kiln's fuel, heap and call
//! depth; QuickJS's interrupt, memory and stack limits, which it reports as an
//! `InternalError`), error messages, function source text, and everything the
//! generator never writes (time, randomness, locale, implementation-approximated
//! `Math` functions, inconsistent sort comparators, `toString(radix)` of fractions).
//! Any other difference panics with the program and both outputs.

#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use kiln::{ErrorKind, HostValue, Limits, Options, Runtime};
use libfuzzer_sys::fuzz_target;
use std::cell::{Cell, RefCell};
use std::fmt::Write;
use std::rc::Rc;

/// Defined the same on both engines; `__out` is the host's line sink.
const PRELUDE: &str = r#"
// a function's text is up to the engine for built-ins (spacing, line breaks)
Object.defineProperty(Function.prototype, 'toString', {
  value: function toString() { return 'function'; }, writable: true, configurable: true,
});
var __depth = 0;
function quote(s) {
  var out = '"';
  for (var i = 0; i < s.length && i < 300; i++) {
    var c = s.charCodeAt(i);
    out += c >= 32 && c < 127 && c !== 34 && c !== 92 ? s[i] : '\\u' + c.toString(16).padStart(4, '0');
  }
  return out + (s.length > 300 ? '...' : '') + '"';
}
function show(v) {
  switch (typeof v) {
    case 'undefined': return 'undefined';
    case 'number': return Object.is(v, -0) ? '-0' : String(v);
    case 'bigint': return String(v) + 'n';
    case 'string': return quote(v);
    case 'boolean': return String(v);
    case 'symbol': return 'Symbol(' + quote(String(v.description)) + ')';
    case 'function': return 'function';
  }
  if (v === null) return 'null';
  if (__depth > 4) return '...';
  __depth++;
  try {
    if (Array.isArray(v)) {
      var parts = [];
      for (var i = 0; i < v.length && i < 40; i++) parts.push(i in v ? show(v[i]) : '<hole>');
      return '[' + parts.join(',') + (v.length > 40 ? ',...' + v.length : '') + ']';
    }
    if (v instanceof Error) return 'Error:' + v.constructor.name;
    if (v instanceof Map) return 'Map' + show(Array.from(v));
    if (v instanceof Set) return 'Set' + show(Array.from(v));
    if (v instanceof RegExp) return 'RegExp:' + quote(v.source) + v.flags;
    if (v instanceof Promise) return 'Promise';
    var keys = Object.keys(v).slice(0, 40);
    return '{' + keys.map(function (k) { return quote(k) + ':' + show(v[k]); }).join(',') + '}';
  } finally {
    __depth--;
  }
}
function print(v) { __out(show(v)); }
function errname(e) {
  return e instanceof Error ? 'throws ' + e.constructor.name : 'throws value ' + show(e);
}
// what a `catch` block prints; showing the exception may throw again (a getter)
function caught(e) {
  var line;
  try { line = errname(e); } catch (again) { line = 'throws while showing'; }
  __out(line);
}
function arr(v) { return Array.isArray(v) ? v : [v]; }
function spreadable(v) { return typeof v === 'string' ? new String(v) : v; }
function text(v) { return `${v}`; }
function key(v) { return typeof v === 'object' || typeof v === 'function' ? String(v) : v; }
function radix(x, r) {
  return Number.isInteger(x) && Math.abs(x) < 9007199254740992 ? x.toString(r) : 'fraction';
}
function cmp(a, b) {
  var x = typeof a === 'symbol' ? 'symbol' : String(a), y = typeof b === 'symbol' ? 'symbol' : String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
var v0 = 0, v1 = 'text', v2 = [1, 2, 3], v3 = { a: 1, b: 'two' }, v4 = -1.5, v5 = null;
"#;

/// A whole program: top-level statements, each in its own `try`.
#[derive(Debug)]
struct Program {
    items: Vec<Stmt>,
}

#[derive(Arbitrary, Debug)]
enum Stmt {
    Print(Expr),
    Assign(u8, Expr),
    SetProp(Expr, Key, Expr),
    SetIndex(Expr, Expr, Expr),
    Delete(Expr, Key),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    Loop(u8, Vec<Stmt>),
    ForOf(Expr, Vec<Stmt>),
    ForIn(Expr, Vec<Stmt>),
    While(u8, Vec<Stmt>),
    Switch(Expr, Vec<(Lit, Vec<Stmt>)>),
    Try(Vec<Stmt>, Vec<Stmt>, bool),
    Throw(Expr),
    Break,
    Continue,
    Return(Expr),
    Function(u8, Vec<Stmt>, Expr),
    Later(Vec<Stmt>),
    Async(Vec<Stmt>, Expr),
    Class(Vec<ClassMember>, Vec<Expr>),
}

#[derive(Arbitrary, Debug)]
enum ClassMember {
    Field(Key, Expr),
    Method(Key, Expr),
    Getter(Key, Expr),
    Static(Key, Expr),
    Private(Expr),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Key {
    A,
    B,
    C,
    Zero,
    One,
    Length,
    ToString,
    ValueOf,
    Spaced,
    Proto,
    Big,
}

#[derive(Arbitrary, Debug)]
enum Lit {
    Number(u8),
    Float(f64),
    Int(i32),
    Str(u8),
    Ascii(String),
    BigInt(i64),
    True,
    False,
    Null,
    Undefined,
}

#[derive(Arbitrary, Debug)]
enum Expr {
    Lit(Lit),
    Var(u8),
    Array(Vec<Expr>),
    Holes(u8),
    Object(Vec<(Key, Expr)>),
    ObjectGetter(Key, Box<Expr>),
    Template(Vec<(u8, Expr)>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    Update(u8, bool, bool),
    CompoundAssign(u8, BinOp, Box<Expr>),
    StringMethod(Box<Expr>, StringMethod, Vec<Expr>),
    ArrayMethod(Box<Expr>, ArrayMethod, Vec<Expr>),
    Callback(Box<Expr>, CallbackMethod, Box<Expr>),
    Reduce(Box<Expr>, bool, Box<Expr>, Box<Expr>),
    Sort(Box<Expr>, bool),
    NumberFormat(Box<Expr>, NumberFormat, u8),
    Radix(Box<Expr>, u8),
    Static(StaticFn, Vec<Expr>),
    Math(MathFn, Vec<Expr>),
    Regex(u8, RegexOp, Box<Expr>),
    Json(JsonOp, Box<Expr>),
    JsonText(u8),
    Call(u8, Vec<Expr>),
    Lambda(Box<Expr>),
    Index(Box<Expr>, Box<Expr>),
    Prop(Box<Expr>, Key),
    OptionalProp(Box<Expr>, Key),
    In(Key, Box<Expr>),
    Instanceof(Box<Expr>, Ctor),
    New(Ctor, Vec<Expr>),
    Spread(Box<Expr>),
    SpreadObject(Box<Expr>, Box<Expr>),
    Destructure(Box<Expr>, bool),
    Comma(Box<Expr>, Box<Expr>),
    Param(u8),
    Typeof(Box<Expr>),
    Collection(Box<Expr>, CollectionOp, Box<Expr>),
    NewClass(u8, Vec<Expr>),
    Iterate(Box<Expr>, IterOp),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum UnOp {
    Neg,
    Plus,
    Not,
    BitNot,
    Void,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Eq,
    Ne,
    StrictEq,
    StrictNe,
    Lt,
    Gt,
    Le,
    Ge,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    UShr,
    And,
    Or,
    Nullish,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum StringMethod {
    At,
    CharAt,
    CharCodeAt,
    CodePointAt,
    Concat,
    EndsWith,
    Includes,
    IndexOf,
    LastIndexOf,
    PadEnd,
    PadStart,
    Repeat,
    Replace,
    ReplaceAll,
    Slice,
    Split,
    StartsWith,
    Substring,
    Substr,
    ToLowerCase,
    ToUpperCase,
    Trim,
    TrimStart,
    TrimEnd,
    Normalize,
    IsWellFormed,
    ToWellFormed,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum ArrayMethod {
    At,
    Concat,
    CopyWithin,
    Fill,
    Flat,
    Includes,
    IndexOf,
    Join,
    LastIndexOf,
    Pop,
    Push,
    Reverse,
    Shift,
    Slice,
    Splice,
    Unshift,
    ToReversed,
    ToSpliced,
    With,
    Keys,
    Entries,
    ToString,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum CallbackMethod {
    Map,
    Filter,
    Some,
    Every,
    Find,
    FindIndex,
    FindLast,
    FindLastIndex,
    FlatMap,
    ForEach,
    ArrayFrom,
    GroupBy,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum NumberFormat {
    Fixed,
    Precision,
    Exponential,
    ToString,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum StaticFn {
    String,
    Number,
    Boolean,
    ParseInt,
    ParseFloat,
    IsNaN,
    IsFinite,
    NumberIsInteger,
    NumberIsSafeInteger,
    ArrayFrom,
    ArrayOf,
    ArrayIsArray,
    ObjectKeys,
    ObjectValues,
    ObjectEntries,
    ObjectAssign,
    ObjectFreeze,
    ObjectIsFrozen,
    ObjectFromEntries,
    ObjectGetOwnPropertyNames,
    ObjectIs,
    BigInt,
    StringFromCharCode,
    StringFromCodePoint,
    StringRaw,
    EncodeUriComponent,
    DecodeUriComponent,
    Escape,
    Symbol,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum MathFn {
    Floor,
    Ceil,
    Round,
    Trunc,
    Abs,
    Sign,
    Min,
    Max,
    Sqrt,
    Fround,
    Clz32,
    Imul,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum RegexOp {
    Test,
    Exec,
    Replace,
    ReplaceFn,
    Match,
    MatchAll,
    Split,
    Search,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum JsonOp {
    Stringify,
    StringifyIndent,
    RoundTrip,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Ctor {
    Array,
    Object,
    Error,
    TypeError,
    RangeError,
    Map,
    Set,
    Number,
    String,
    Boolean,
    Date,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum CollectionOp {
    Set,
    Get,
    Has,
    Delete,
    Add,
    Size,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum IterOp {
    Spread,
    Entries,
    Generator,
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "10",
    "16",
    "100",
    "255",
    "256",
    "1000",
    "65535",
    "2147483647",
    "2147483648",
    "4294967296",
    "9007199254740992",
    "9007199254740993",
    "-9007199254740992",
    "0.1",
    "0.2",
    "0.5",
    "1.5",
    "2.5",
    "-1.5",
    "-2.5",
    "123.456",
    "1e21",
    "1e-7",
    "5e-324",
    "1.7976931348623157e308",
    "NaN",
    "Infinity",
    "-Infinity",
    "0.000001",
    "1234.5678",
    "9.95",
    "1.005",
    "4.35",
    "1e300",
    "0.1 + 0.2",
    "1 / 3",
    "-1e-7",
    "123e-20",
    "0x7fffffff",
    "0o17",
    "0b101",
    "1_000_000",
    "25",
    "36",
    "37",
    "101",
    "20",
    "21",
    "0.25",
];

const STRINGS: &[&str] = &[
    "",
    "a",
    "abc",
    "Hello, World",
    "  padded  ",
    "0",
    "1.5",
    "-0",
    "NaN",
    "\u{e9}",
    "\u{1F600}",
    "\u{0}",
    "a-b-c",
    "true",
    "[1,2]",
    "{\"a\":1}",
    "\u{1c5}",
    "\u{df}",
    "\u{130}",
    "\\ud800",
    "x\\ny",
    "aaa",
    "abcabc",
    "10",
    "0x1f",
    " 12 ",
    "1e3",
    "Infinity",
    "\u{3a3}A",
    "caf\u{e9}",
    "cafe\u{301}",
    "\u{fb01}",
    "\t\u{a0}\u{2028}x\u{feff}",
    "$&$1$$",
    "%E4%BD%A0",
    "%",
    "a,b,,c",
    "length",
    "__proto__",
    "\u{10ffff}",
    "\\udc00\\ud800",
];

const JSON_TEXTS: &[&str] = &[
    "1",
    "-0",
    "\"s\"",
    "[1,2,[3]]",
    "{\"a\":[],\"b\":{\"c\":null}}",
    "{\"__proto__\":1}",
    "[1,]",
    "{'a':1}",
    "1e400",
    "\"\\ud800\"",
    "  true ",
    "{\"a\":1,\"a\":2}",
    "01",
    "[",
    "\"\\u00e9\"",
    "{\"1\":1,\"b\":2,\"0\":3}",
    "123456789012345678901234567890",
];

const REGEXES: &[&str] = &[
    "/a/",
    "/a/g",
    "/(\\d+)/g",
    "/[a-z]+/gi",
    "/^\\s+|\\s+$/g",
    "/(?<w>\\w)\\k<w>/",
    "/./gu",
    "/b*/g",
    "/x?/y",
    "/\\bfoo\\b/",
    "/(a)|(b)/g",
    "/[^]/g",
    "/(?:ab)+/",
    "/\\u{1F600}/u",
    "/\\p{L}+/gu",
    "/(?=a)a/",
    "/(?<=a)b/g",
    "/a{2,}/",
    "/[\\s\\S]/",
    "/$/gm",
    "/\\d*?/g",
    "/(.)(.)?/",
    "/[\\p{Ll}--[a-z]]/v",
    "/(?i:a)b/",
    "/\\W+/g",
    "/é/i",
    "/ß/iu",
];

const REPLACEMENTS: &[&str] = &[
    "\"-\"",
    "\"$&$&\"",
    "\"[$1]\"",
    "\"$<w>\"",
    "\"$`|$'\"",
    "\"$$\"",
];

/// Renders a `Program` as JavaScript.
struct Writer {
    out: String,
    /// functions defined so far (a call names one of them)
    functions: usize,
    /// classes defined so far
    classes: usize,
    /// how many statements and expressions were written (a bound on the program's size)
    nodes: usize,
}

/// Where an expression or statement is written.
#[derive(Clone, Copy)]
struct Scope {
    depth: u32,
    in_loop: bool,
    in_function: bool,
    /// arrow-function parameters `p0 .. p{lambdas - 1}` in scope
    lambdas: u8,
    /// the function parameters `a`, `b` are in scope
    params: bool,
}

const MAX_DEPTH: u32 = 6;
const MAX_NODES: usize = 400;

impl Writer {
    fn stmts(&mut self, stmts: &[Stmt], scope: Scope) {
        for s in stmts.iter().take(8) {
            self.stmt(s, scope);
        }
    }

    fn block(&mut self, stmts: &[Stmt], scope: Scope) {
        self.out.push_str("{ ");
        if scope.depth < MAX_DEPTH {
            self.stmts(
                stmts,
                Scope {
                    depth: scope.depth + 1,
                    ..scope
                },
            );
        }
        self.out.push_str("} ");
    }

    fn stmt(&mut self, s: &Stmt, scope: Scope) {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return;
        }
        let inner = Scope {
            depth: scope.depth + 1,
            ..scope
        };
        match s {
            Stmt::Print(e) => {
                self.out.push_str("print(");
                self.expr(e, inner);
                self.out.push_str("); ");
            }
            Stmt::Assign(v, e) => {
                let _ = write!(self.out, "v{} = ", v % 6);
                self.expr(e, inner);
                self.out.push_str("; ");
            }
            Stmt::SetProp(o, k, e) => {
                self.paren(o, inner);
                let _ = write!(self.out, "{} = ", key_access(*k));
                self.expr(e, inner);
                self.out.push_str("; ");
            }
            Stmt::SetIndex(o, i, e) => {
                // the key made a primitive first: in `o[k] = v` the spec converts `k` after
                // evaluating `v` (as Kiln and V8 do), QuickJS-NG before
                self.paren(o, inner);
                self.out.push_str("[key(");
                self.expr(i, inner);
                self.out.push_str(")] = ");
                self.expr(e, inner);
                self.out.push_str("; ");
            }
            Stmt::Delete(o, k) => {
                self.out.push_str("print(delete ");
                self.paren(o, inner);
                let _ = write!(self.out, "{}); ", key_access(*k));
            }
            Stmt::If(c, then, otherwise) => {
                self.out.push_str("if (");
                self.expr(c, inner);
                self.out.push_str(") ");
                self.block(then, scope);
                if !otherwise.is_empty() {
                    self.out.push_str("else ");
                    self.block(otherwise, scope);
                }
            }
            Stmt::Loop(n, body) => {
                let i = scope.depth;
                let _ = write!(self.out, "for (let i{i} = 0; i{i} < {}; i{i}++) ", n % 7);
                self.block(
                    body,
                    Scope {
                        in_loop: true,
                        ..scope
                    },
                );
            }
            Stmt::While(n, body) => {
                let i = scope.depth;
                let _ = write!(self.out, "{{ let w{i} = {}; while (w{i}-- > 0) ", n % 5);
                self.block(
                    body,
                    Scope {
                        in_loop: true,
                        ..scope
                    },
                );
                self.out.push_str("} ");
            }
            Stmt::ForOf(e, body) => {
                let p = scope.lambdas;
                let _ = write!(self.out, "for (const p{p} of ");
                self.expr(e, inner);
                self.out.push_str(") ");
                self.block(
                    body,
                    Scope {
                        in_loop: true,
                        lambdas: p + 1,
                        ..scope
                    },
                );
            }
            Stmt::ForIn(e, body) => {
                let p = scope.lambdas;
                let _ = write!(self.out, "for (const p{p} in ");
                self.expr(e, inner);
                self.out.push_str(") ");
                self.block(
                    body,
                    Scope {
                        in_loop: true,
                        lambdas: p + 1,
                        ..scope
                    },
                );
            }
            Stmt::Switch(e, cases) => {
                self.out.push_str("switch (");
                self.expr(e, inner);
                self.out.push_str(") { ");
                for (lit, body) in cases.iter().take(4) {
                    self.out.push_str("case ");
                    self.lit(lit);
                    self.out.push_str(": ");
                    self.block(
                        body,
                        Scope {
                            in_loop: true,
                            ..scope
                        },
                    );
                }
                self.out.push_str("} ");
            }
            Stmt::Try(body, handler, finally) => {
                self.out.push_str("try ");
                self.block(body, scope);
                self.out.push_str("catch (e) { caught(e); ");
                if scope.depth < MAX_DEPTH {
                    self.stmts(handler, inner);
                }
                self.out.push_str("} ");
                if *finally {
                    self.out.push_str("finally { print('finally'); } ");
                }
            }
            Stmt::Throw(e) => {
                self.out.push_str("throw ");
                self.expr(e, inner);
                self.out.push_str("; ");
            }
            Stmt::Break if scope.in_loop => self.out.push_str("break; "),
            Stmt::Continue if scope.in_loop => self.out.push_str("continue; "),
            Stmt::Return(e) if scope.in_function => {
                self.out.push_str("return ");
                self.expr(e, inner);
                self.out.push_str("; ");
            }
            Stmt::Break | Stmt::Continue | Stmt::Return(_) => {}
            Stmt::Function(kind, body, result) => {
                // Only at the top level, so that every later call can see it; it calls
                // only functions defined before it, so nothing recurses.
                if scope.depth > 1 {
                    return;
                }
                let star = if kind % 3 == 1 { "*" } else { "" };
                let _ = write!(self.out, "function{star} f{}(a, b) ", self.functions);
                let body_scope = Scope {
                    depth: scope.depth,
                    in_loop: false,
                    in_function: true,
                    lambdas: 0,
                    params: true,
                };
                self.out.push_str("{ ");
                self.stmts(
                    body,
                    Scope {
                        depth: scope.depth + 1,
                        ..body_scope
                    },
                );
                self.out
                    .push_str(if star.is_empty() { "return " } else { "yield " });
                self.expr(
                    result,
                    Scope {
                        depth: scope.depth + 1,
                        ..body_scope
                    },
                );
                self.out.push_str("; } ");
                self.functions += 1;
            }
            Stmt::Later(body) => {
                self.out.push_str("Promise.resolve().then(() => { try ");
                self.block(
                    body,
                    Scope {
                        in_loop: false,
                        in_function: false,
                        ..scope
                    },
                );
                self.out.push_str("catch (e) { caught(e); } }); ");
            }
            Stmt::Async(body, awaited) => {
                self.out
                    .push_str("(async () => { try { print('start'); await ");
                self.expr(awaited, inner);
                self.out.push_str("; print('resumed'); ");
                self.block(
                    body,
                    Scope {
                        in_loop: false,
                        in_function: false,
                        ..scope
                    },
                );
                self.out.push_str("} catch (e) { caught(e); } })(); ");
            }
            Stmt::Class(members, args) => {
                if scope.depth > 1 {
                    return;
                }
                // assigned in a `try`, so that a throwing static initializer is caught
                // like any other statement's exception, and visible after it
                let c = self.classes;
                let _ = write!(self.out, "var C{c}; try {{ C{c} = class {{ ");
                let member_scope = Scope {
                    depth: scope.depth + 1,
                    in_loop: false,
                    in_function: false,
                    lambdas: 0,
                    params: false,
                };
                let mut private = false;
                for m in members.iter().take(5) {
                    match m {
                        ClassMember::Field(k, e) => {
                            let _ = write!(self.out, "{} = ", key_name(*k));
                            self.expr(e, member_scope);
                            self.out.push_str("; ");
                        }
                        ClassMember::Method(k, e) => {
                            let _ = write!(self.out, "{}(a, b) {{ return ", key_name(*k));
                            self.expr(
                                e,
                                Scope {
                                    params: true,
                                    ..member_scope
                                },
                            );
                            self.out.push_str("; } ");
                        }
                        ClassMember::Getter(k, e) => {
                            let _ = write!(self.out, "get {}() {{ return ", key_name(*k));
                            self.expr(e, member_scope);
                            self.out.push_str("; } ");
                        }
                        ClassMember::Static(k, e) => {
                            let _ = write!(self.out, "static {} = ", key_name(*k));
                            self.expr(e, member_scope);
                            self.out.push_str("; ");
                        }
                        ClassMember::Private(e) if !private => {
                            private = true;
                            self.out.push_str("#p = ");
                            self.expr(e, member_scope);
                            self.out.push_str("; peek() { return this.#p; } ");
                        }
                        ClassMember::Private(_) => {}
                    }
                }
                let _ = write!(self.out, "}}; print(new C{c}(");
                self.args(args, inner, 2);
                self.out.push_str(")); } catch (e) { caught(e); } ");
                self.classes += 1;
            }
        }
    }

    fn args(&mut self, args: &[Expr], scope: Scope, max: usize) {
        for (i, a) in args.iter().take(max).enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.expr(a, scope);
        }
    }

    /// `(e)`, so that a member access or call applies to the whole expression.
    fn paren(&mut self, e: &Expr, scope: Scope) {
        self.out.push('(');
        self.expr(e, scope);
        self.out.push(')');
    }

    fn lit(&mut self, l: &Lit) {
        match l {
            Lit::Number(i) => {
                let _ = write!(self.out, "({})", NUMBERS[*i as usize % NUMBERS.len()]);
            }
            Lit::Float(f) => {
                if f.is_nan() {
                    self.out.push_str("NaN");
                } else if f.is_infinite() {
                    self.out
                        .push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" });
                } else {
                    let _ = write!(self.out, "({f:?})");
                }
            }
            Lit::Int(i) => {
                let _ = write!(self.out, "({i})");
            }
            Lit::Str(i) => {
                let s = STRINGS[*i as usize % STRINGS.len()];
                self.string(s);
            }
            Lit::Ascii(s) => {
                let s: String = s.chars().filter(|c| c.is_ascii()).take(24).collect();
                self.string(&s.replace('\\', "\\\\"));
            }
            Lit::BigInt(i) => {
                let _ = write!(self.out, "({i}n)");
            }
            Lit::True => self.out.push_str("true"),
            Lit::False => self.out.push_str("false"),
            Lit::Null => self.out.push_str("null"),
            Lit::Undefined => self.out.push_str("undefined"),
        }
    }

    /// A string literal; `s` may hold escapes already written as JavaScript (`\\ud800`).
    fn string(&mut self, s: &str) {
        self.out.push('"');
        self.escaped(s, '"');
        self.out.push('"');
    }

    /// `s` inside a string or template literal closed by `quote`: control characters,
    /// line terminators and the quote escaped (a NUL in the source would also stop
    /// QuickJS's C API short).
    fn escaped(&mut self, s: &str, quote: char) {
        for c in s.chars() {
            match c {
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\u{2028}' => self.out.push_str("\\u2028"),
                '\u{2029}' => self.out.push_str("\\u2029"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(self.out, "\\x{:02x}", c as u32);
                }
                c if c == quote || (quote == '`' && c == '$') => {
                    self.out.push('\\');
                    self.out.push(c);
                }
                c => self.out.push(c),
            }
        }
    }

    fn expr(&mut self, e: &Expr, scope: Scope) {
        self.nodes += 1;
        if scope.depth > MAX_DEPTH + 4 || self.nodes > MAX_NODES {
            self.out.push('0');
            return;
        }
        let inner = Scope {
            depth: scope.depth + 1,
            ..scope
        };
        match e {
            Expr::Lit(l) => self.lit(l),
            Expr::Var(v) => {
                let _ = write!(self.out, "v{}", v % 6);
            }
            Expr::Param(p) => {
                if scope.params && p % 2 == 0 {
                    self.out.push_str(if p % 4 == 0 { "a" } else { "b" });
                } else if scope.lambdas > 0 {
                    let _ = write!(self.out, "p{}", p % scope.lambdas);
                } else {
                    let _ = write!(self.out, "v{}", p % 6);
                }
            }
            Expr::Array(items) => {
                self.out.push('[');
                self.args(items, inner, 6);
                self.out.push(']');
            }
            Expr::Holes(n) => {
                let _ = write!(self.out, "[1, , 3{}]", ",".repeat((*n % 4) as usize));
            }
            Expr::Object(entries) => {
                self.out.push_str("({ ");
                for (k, v) in entries.iter().take(5) {
                    let _ = write!(self.out, "{}: ", key_name(*k));
                    self.expr(v, inner);
                    self.out.push_str(", ");
                }
                self.out.push_str("})");
            }
            Expr::ObjectGetter(k, v) => {
                let _ = write!(self.out, "({{ get {}() {{ return ", key_name(*k));
                self.expr(v, inner);
                self.out.push_str("; } })");
            }
            Expr::Template(parts) => {
                self.out.push('`');
                for (text, value) in parts.iter().take(4) {
                    self.escaped(STRINGS[*text as usize % STRINGS.len()], '`');
                    // each part converted in its own template: the spec converts each
                    // substitution before evaluating the next (as Kiln and V8 do),
                    // QuickJS-NG evaluates them all first
                    self.out.push_str("${text(");
                    self.expr(value, inner);
                    self.out.push_str(")}");
                }
                self.out.push('`');
            }
            Expr::Unary(op, x) => {
                let op = match op {
                    UnOp::Neg => "-",
                    UnOp::Plus => "+",
                    UnOp::Not => "!",
                    UnOp::BitNot => "~",
                    UnOp::Void => "void ",
                };
                self.out.push('(');
                self.out.push_str(op);
                self.paren(x, inner);
                self.out.push(')');
            }
            Expr::Typeof(x) => {
                self.out.push_str("(typeof ");
                self.paren(x, inner);
                self.out.push(')');
            }
            Expr::Binary(op, a, b) => {
                self.out.push('(');
                self.paren(a, inner);
                let _ = write!(self.out, " {} ", bin_op(*op));
                self.paren(b, inner);
                self.out.push(')');
            }
            Expr::Cond(c, a, b) => {
                self.out.push('(');
                self.paren(c, inner);
                self.out.push_str(" ? ");
                self.paren(a, inner);
                self.out.push_str(" : ");
                self.paren(b, inner);
                self.out.push(')');
            }
            Expr::Update(v, prefix, increment) => {
                let op = if *increment { "++" } else { "--" };
                if *prefix {
                    let _ = write!(self.out, "({op}v{})", v % 6);
                } else {
                    let _ = write!(self.out, "(v{}{op})", v % 6);
                }
            }
            Expr::CompoundAssign(v, op, x) => {
                let _ = write!(self.out, "(v{} {}= ", v % 6, bin_op(*op));
                self.paren(x, inner);
                self.out.push(')');
            }
            Expr::StringMethod(recv, m, args) => {
                self.out.push_str("String(");
                self.expr(recv, inner);
                let (name, arity) = string_method(*m);
                let _ = write!(self.out, ").{name}(");
                self.args(args, inner, arity);
                self.out.push(')');
            }
            Expr::ArrayMethod(recv, m, args) => {
                self.out.push_str("arr(");
                self.expr(recv, inner);
                let (name, arity) = array_method(*m);
                let _ = write!(self.out, ").{name}(");
                self.args(args, inner, arity);
                self.out.push(')');
                if matches!(m, ArrayMethod::Keys | ArrayMethod::Entries) {
                    // the iterator, drained
                    self.out.push_str(".toArray()");
                }
            }
            Expr::Callback(recv, m, body) => {
                let p = scope.lambdas;
                let lambda = Scope {
                    lambdas: p + 2,
                    ..inner
                };
                let name = match m {
                    CallbackMethod::Map => "map",
                    CallbackMethod::Filter => "filter",
                    CallbackMethod::Some => "some",
                    CallbackMethod::Every => "every",
                    CallbackMethod::Find => "find",
                    CallbackMethod::FindIndex => "findIndex",
                    CallbackMethod::FindLast => "findLast",
                    CallbackMethod::FindLastIndex => "findLastIndex",
                    CallbackMethod::FlatMap => "flatMap",
                    CallbackMethod::ForEach => "forEach",
                    CallbackMethod::ArrayFrom => {
                        self.out.push_str("Array.from(arr(");
                        self.expr(recv, inner);
                        let _ = write!(self.out, "), (p{p}, p{}) => ", p + 1);
                        self.paren(body, lambda);
                        self.out.push(')');
                        return;
                    }
                    CallbackMethod::GroupBy => {
                        self.out.push_str("Object.groupBy(arr(");
                        self.expr(recv, inner);
                        let _ = write!(self.out, "), (p{p}, p{}) => String(", p + 1);
                        self.paren(body, lambda);
                        self.out.push_str("))");
                        return;
                    }
                };
                self.out.push_str("arr(");
                self.expr(recv, inner);
                let _ = write!(self.out, ").{name}((p{p}, p{}) => ", p + 1);
                self.paren(body, lambda);
                self.out.push(')');
            }
            Expr::Reduce(recv, right, body, init) => {
                let p = scope.lambdas;
                let lambda = Scope {
                    lambdas: p + 2,
                    ..inner
                };
                self.out.push_str("arr(");
                self.expr(recv, inner);
                let name = if *right { "reduceRight" } else { "reduce" };
                let _ = write!(self.out, ").{name}((p{p}, p{}) => ", p + 1);
                self.paren(body, lambda);
                self.out.push_str(", ");
                self.expr(init, inner);
                self.out.push(')');
            }
            Expr::Sort(recv, with_comparator) => {
                self.out.push_str("arr(");
                self.expr(recv, inner);
                // the default order or a consistent comparator: both engines must agree
                self.out.push_str(if *with_comparator {
                    ").toSorted(cmp)"
                } else {
                    ").toSorted()"
                });
            }
            Expr::NumberFormat(x, f, digits) => {
                self.out.push_str("Number(");
                self.expr(x, inner);
                let d = digits % 105;
                let _ = match f {
                    NumberFormat::Fixed => write!(self.out, ").toFixed({d})"),
                    NumberFormat::Precision => write!(self.out, ").toPrecision({d})"),
                    NumberFormat::Exponential => write!(self.out, ").toExponential({d})"),
                    NumberFormat::ToString => write!(self.out, ").toString()"),
                };
            }
            Expr::Radix(x, r) => {
                self.out.push_str("radix(Number(");
                self.expr(x, inner);
                let _ = write!(self.out, "), {})", r % 40);
            }
            Expr::Static(f, args) => {
                let (name, arity) = static_fn(*f);
                let _ = write!(self.out, "{name}(");
                self.args(args, inner, arity);
                self.out.push(')');
            }
            Expr::Math(f, args) => {
                let (name, arity) = math_fn(*f);
                let _ = write!(self.out, "Math.{name}(");
                self.args(args, inner, arity);
                self.out.push(')');
            }
            Expr::Regex(i, op, subject) => {
                let re = REGEXES[*i as usize % REGEXES.len()];
                let replacement = REPLACEMENTS[*i as usize % REPLACEMENTS.len()];
                let p = scope.lambdas;
                self.out.push('(');
                match op {
                    RegexOp::Test => {
                        let _ = write!(self.out, "{re}.test(String(");
                        self.expr(subject, inner);
                        self.out.push_str("))");
                    }
                    RegexOp::Exec => {
                        let _ = write!(self.out, "{re}.exec(String(");
                        self.expr(subject, inner);
                        self.out.push_str("))");
                    }
                    RegexOp::Replace => {
                        self.out.push_str("String(");
                        self.expr(subject, inner);
                        let _ = write!(self.out, ").replace({re}, {replacement})");
                    }
                    RegexOp::ReplaceFn => {
                        self.out.push_str("String(");
                        self.expr(subject, inner);
                        let _ = write!(
                            self.out,
                            ").replace({re}, (...p{p}) => JSON.stringify(p{p}.slice(0, -2)))"
                        );
                    }
                    RegexOp::Match => {
                        self.out.push_str("String(");
                        self.expr(subject, inner);
                        let _ = write!(self.out, ").match({re})");
                    }
                    RegexOp::MatchAll => {
                        self.out.push_str("Array.from(String(");
                        self.expr(subject, inner);
                        let _ = write!(
                            self.out,
                            ").matchAll({re}), (p{p}) => [p{p}.index, ...p{p}])"
                        );
                    }
                    RegexOp::Split => {
                        self.out.push_str("String(");
                        self.expr(subject, inner);
                        let _ = write!(self.out, ").split({re})");
                    }
                    RegexOp::Search => {
                        self.out.push_str("String(");
                        self.expr(subject, inner);
                        let _ = write!(self.out, ").search({re})");
                    }
                }
                self.out.push(')');
            }
            Expr::Json(op, x) => {
                match op {
                    JsonOp::Stringify => self.out.push_str("JSON.stringify("),
                    JsonOp::StringifyIndent => self.out.push_str("JSON.stringify("),
                    JsonOp::RoundTrip => self.out.push_str("JSON.parse(JSON.stringify("),
                }
                self.expr(x, inner);
                self.out.push_str(match op {
                    JsonOp::Stringify => ")",
                    JsonOp::StringifyIndent => ", null, 2)",
                    JsonOp::RoundTrip => ") ?? null)",
                });
            }
            Expr::JsonText(i) => {
                let text = JSON_TEXTS[*i as usize % JSON_TEXTS.len()];
                self.out.push_str("JSON.parse(");
                self.string(text);
                self.out.push(')');
            }
            Expr::Call(f, args) => {
                if self.functions == 0 {
                    self.out.push_str("undefined");
                    return;
                }
                let _ = write!(self.out, "f{}(", *f as usize % self.functions);
                self.args(args, inner, 2);
                self.out.push(')');
            }
            Expr::NewClass(c, args) => {
                if self.classes == 0 {
                    self.out.push_str("null");
                    return;
                }
                let _ = write!(self.out, "new C{}(", *c as usize % self.classes);
                self.args(args, inner, 2);
                self.out.push(')');
            }
            Expr::Lambda(body) => {
                let p = scope.lambdas;
                let _ = write!(self.out, "((p{p}) => ");
                self.paren(
                    body,
                    Scope {
                        lambdas: p + 1,
                        ..inner
                    },
                );
                self.out.push(')');
            }
            Expr::Index(o, i) => {
                self.paren(o, inner);
                self.out.push('[');
                self.expr(i, inner);
                self.out.push(']');
            }
            Expr::Prop(o, k) => {
                self.paren(o, inner);
                self.out.push_str(&key_access(*k));
            }
            Expr::OptionalProp(o, k) => {
                self.paren(o, inner);
                self.out.push('?');
                let access = key_access(*k);
                if !access.starts_with('[') {
                    self.out.push_str(&access);
                } else {
                    self.out.push('.');
                    self.out.push_str(&access);
                }
            }
            Expr::In(k, o) => {
                let _ = write!(self.out, "({} in ", quoted_key(*k));
                self.paren(o, inner);
                self.out.push(')');
            }
            Expr::Instanceof(x, c) => {
                self.out.push('(');
                self.paren(x, inner);
                let _ = write!(self.out, " instanceof {})", ctor(*c));
            }
            Expr::New(Ctor::Date, args) => {
                // a time value: no argument would read the clock, and parsing a date
                // string is up to the implementation beyond the ISO format
                self.out.push_str("new Date(Number(");
                self.args(args, inner, 1);
                self.out.push_str(")).getTime()");
            }
            Expr::New(c, args) => {
                let _ = write!(self.out, "new {}(", ctor(*c));
                self.args(args, inner, 2);
                self.out.push(')');
            }
            Expr::Spread(x) => {
                self.out.push_str("[...arr(");
                self.expr(x, inner);
                self.out.push_str("), 0]");
            }
            Expr::SpreadObject(a, b) => {
                // a string primitive spread as its String object: the same properties by
                // the spec, but QuickJS-NG copies none from the primitive
                self.out.push_str("({ ...spreadable(");
                self.expr(a, inner);
                self.out.push_str("), z: 1, ...spreadable(");
                self.expr(b, inner);
                self.out.push_str(") })");
            }
            Expr::Destructure(x, array) => {
                let p = scope.lambdas;
                if *array {
                    let _ = write!(
                        self.out,
                        "(([p{p}, , ...p{}]) => [p{p}, p{}])(",
                        p + 1,
                        p + 1
                    );
                } else {
                    let _ = write!(
                        self.out,
                        "(({{ a: p{p} = 'default', ...p{} }}) => [p{p}, p{}])(",
                        p + 1,
                        p + 1
                    );
                }
                self.expr(x, inner);
                self.out.push(')');
            }
            Expr::Comma(a, b) => {
                self.out.push('(');
                self.expr(a, inner);
                self.out.push_str(", ");
                self.expr(b, inner);
                self.out.push(')');
            }
            Expr::Collection(c, op, x) => {
                self.out.push('(');
                self.paren(c, inner);
                match op {
                    CollectionOp::Set => self.out.push_str(".set("),
                    CollectionOp::Get => self.out.push_str(".get("),
                    CollectionOp::Has => self.out.push_str(".has("),
                    CollectionOp::Delete => self.out.push_str(".delete("),
                    CollectionOp::Add => self.out.push_str(".add("),
                    CollectionOp::Size => {
                        self.out.push_str(".size)");
                        return;
                    }
                }
                self.expr(x, inner);
                if matches!(op, CollectionOp::Set) {
                    self.out.push_str(", 1");
                }
                self.out.push_str("))");
            }
            Expr::Iterate(x, op) => match op {
                IterOp::Spread => {
                    self.out.push_str("[...");
                    self.paren(x, inner);
                    self.out.push(']');
                }
                IterOp::Entries => {
                    self.out.push_str("Object.entries(");
                    self.expr(x, inner);
                    self.out.push_str(").flat()");
                }
                IterOp::Generator => {
                    let p = scope.lambdas;
                    let _ = write!(
                        self.out,
                        "Array.from((function* () {{ for (const p{p} of arr("
                    );
                    self.expr(x, inner);
                    let _ = write!(self.out, ")) {{ yield p{p}; yield* [p{p}]; }} }})())");
                }
            },
        }
    }
}

fn bin_op(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Pow => "**",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::StrictEq => "===",
        BinOp::StrictNe => "!==",
        BinOp::Lt => "<",
        BinOp::Gt => ">",
        BinOp::Le => "<=",
        BinOp::Ge => ">=",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
        BinOp::UShr => ">>>",
        BinOp::And => "&&",
        BinOp::Or => "||",
        BinOp::Nullish => "??",
    }
}

/// The key as written in an object literal or class body.
fn key_name(k: Key) -> &'static str {
    match k {
        Key::A => "a",
        Key::B => "b",
        Key::C => "c",
        Key::Zero => "0",
        Key::One => "1",
        Key::Length => "length",
        Key::ToString => "toString",
        Key::ValueOf => "valueOf",
        Key::Spaced => "\"x y\"",
        Key::Proto => "__proto__",
        Key::Big => "4294967295",
    }
}

fn quoted_key(k: Key) -> String {
    match k {
        Key::Spaced => "\"x y\"".to_string(),
        k => format!("\"{}\"", key_name(k)),
    }
}

/// `.k` or `[k]`.
fn key_access(k: Key) -> String {
    match k {
        Key::Zero | Key::One | Key::Big | Key::Spaced => format!("[{}]", quoted_key(k)),
        k => format!(".{}", key_name(k)),
    }
}

/// A method's name and how many arguments it is given at most.
fn string_method(m: StringMethod) -> (&'static str, usize) {
    match m {
        StringMethod::At => ("at", 1),
        StringMethod::CharAt => ("charAt", 1),
        StringMethod::CharCodeAt => ("charCodeAt", 1),
        StringMethod::CodePointAt => ("codePointAt", 1),
        StringMethod::Concat => ("concat", 3),
        StringMethod::EndsWith => ("endsWith", 2),
        StringMethod::Includes => ("includes", 2),
        StringMethod::IndexOf => ("indexOf", 2),
        StringMethod::LastIndexOf => ("lastIndexOf", 2),
        StringMethod::PadEnd => ("padEnd", 2),
        StringMethod::PadStart => ("padStart", 2),
        StringMethod::Repeat => ("repeat", 1),
        StringMethod::Replace => ("replace", 2),
        StringMethod::ReplaceAll => ("replaceAll", 2),
        StringMethod::Slice => ("slice", 2),
        StringMethod::Split => ("split", 2),
        StringMethod::StartsWith => ("startsWith", 2),
        StringMethod::Substring => ("substring", 2),
        StringMethod::Substr => ("substr", 2),
        StringMethod::ToLowerCase => ("toLowerCase", 0),
        StringMethod::ToUpperCase => ("toUpperCase", 0),
        StringMethod::Trim => ("trim", 0),
        StringMethod::TrimStart => ("trimStart", 0),
        StringMethod::TrimEnd => ("trimEnd", 0),
        StringMethod::Normalize => ("normalize", 1),
        StringMethod::IsWellFormed => ("isWellFormed", 0),
        StringMethod::ToWellFormed => ("toWellFormed", 0),
    }
}

fn array_method(m: ArrayMethod) -> (&'static str, usize) {
    match m {
        ArrayMethod::At => ("at", 1),
        ArrayMethod::Concat => ("concat", 3),
        ArrayMethod::CopyWithin => ("copyWithin", 3),
        ArrayMethod::Fill => ("fill", 3),
        ArrayMethod::Flat => ("flat", 1),
        ArrayMethod::Includes => ("includes", 2),
        ArrayMethod::IndexOf => ("indexOf", 2),
        ArrayMethod::Join => ("join", 1),
        ArrayMethod::LastIndexOf => ("lastIndexOf", 2),
        ArrayMethod::Pop => ("pop", 0),
        ArrayMethod::Push => ("push", 3),
        ArrayMethod::Reverse => ("reverse", 0),
        ArrayMethod::Shift => ("shift", 0),
        ArrayMethod::Slice => ("slice", 2),
        ArrayMethod::Splice => ("splice", 4),
        ArrayMethod::Unshift => ("unshift", 3),
        ArrayMethod::ToReversed => ("toReversed", 0),
        ArrayMethod::ToSpliced => ("toSpliced", 4),
        ArrayMethod::With => ("with", 2),
        ArrayMethod::Keys => ("keys", 0),
        ArrayMethod::Entries => ("entries", 0),
        ArrayMethod::ToString => ("toString", 0),
    }
}

fn static_fn(f: StaticFn) -> (&'static str, usize) {
    match f {
        StaticFn::String => ("String", 1),
        StaticFn::Number => ("Number", 1),
        StaticFn::Boolean => ("Boolean", 1),
        StaticFn::ParseInt => ("parseInt", 2),
        StaticFn::ParseFloat => ("parseFloat", 1),
        StaticFn::IsNaN => ("isNaN", 1),
        StaticFn::IsFinite => ("isFinite", 1),
        StaticFn::NumberIsInteger => ("Number.isInteger", 1),
        StaticFn::NumberIsSafeInteger => ("Number.isSafeInteger", 1),
        StaticFn::ArrayFrom => ("Array.from", 1),
        StaticFn::ArrayOf => ("Array.of", 3),
        StaticFn::ArrayIsArray => ("Array.isArray", 1),
        StaticFn::ObjectKeys => ("Object.keys", 1),
        StaticFn::ObjectValues => ("Object.values", 1),
        StaticFn::ObjectEntries => ("Object.entries", 1),
        StaticFn::ObjectAssign => ("Object.assign", 3),
        StaticFn::ObjectFreeze => ("Object.freeze", 1),
        StaticFn::ObjectIsFrozen => ("Object.isFrozen", 1),
        StaticFn::ObjectFromEntries => ("Object.fromEntries", 1),
        StaticFn::ObjectGetOwnPropertyNames => ("Object.getOwnPropertyNames", 1),
        StaticFn::ObjectIs => ("Object.is", 2),
        StaticFn::BigInt => ("BigInt", 1),
        StaticFn::StringFromCharCode => ("String.fromCharCode", 3),
        StaticFn::StringFromCodePoint => ("String.fromCodePoint", 3),
        StaticFn::StringRaw => ("String.raw", 3),
        StaticFn::EncodeUriComponent => ("encodeURIComponent", 1),
        StaticFn::DecodeUriComponent => ("decodeURIComponent", 1),
        StaticFn::Escape => ("escape", 1),
        StaticFn::Symbol => ("Symbol", 1),
    }
}

fn math_fn(f: MathFn) -> (&'static str, usize) {
    match f {
        MathFn::Floor => ("floor", 1),
        MathFn::Ceil => ("ceil", 1),
        MathFn::Round => ("round", 1),
        MathFn::Trunc => ("trunc", 1),
        MathFn::Abs => ("abs", 1),
        MathFn::Sign => ("sign", 1),
        MathFn::Min => ("min", 3),
        MathFn::Max => ("max", 3),
        MathFn::Sqrt => ("sqrt", 1),
        MathFn::Fround => ("fround", 1),
        MathFn::Clz32 => ("clz32", 1),
        MathFn::Imul => ("imul", 2),
    }
}

fn ctor(c: Ctor) -> &'static str {
    match c {
        Ctor::Array => "Array",
        Ctor::Object => "Object",
        Ctor::Error => "Error",
        Ctor::TypeError => "TypeError",
        Ctor::RangeError => "RangeError",
        Ctor::Map => "Map",
        Ctor::Set => "Set",
        Ctor::Number => "Number",
        Ctor::String => "String",
        Ctor::Boolean => "Boolean",
        Ctor::Date => "Date",
    }
}

/// The program as JavaScript, each top-level statement in its own `try`.
fn render(program: &Program) -> String {
    let mut w = Writer {
        out: String::new(),
        functions: 0,
        classes: 0,
        nodes: 0,
    };
    let top = Scope {
        depth: 1,
        in_loop: false,
        in_function: false,
        lambdas: 0,
        params: false,
    };
    for s in program.items.iter().take(24) {
        if matches!(s, Stmt::Function(..) | Stmt::Class(..)) {
            // a declaration stays at the top level so that later statements see it
            w.stmt(s, top);
            w.out.push('\n');
            continue;
        }
        w.out.push_str("try { ");
        w.stmt(s, Scope { depth: 2, ..top });
        w.out.push_str("} catch (e) { caught(e); }\n");
    }
    w.out
}

/// How a run ended, beside the lines it printed.
#[derive(Debug, PartialEq)]
enum End {
    Done,
    /// an uncaught exception by its name: in practice a SyntaxError in the program
    /// (every statement runs in a `try` whose `catch` cannot throw; QuickJS does not tell
    /// an early error from one thrown while running, so neither side does)
    Uncaught(String),
}

/// Kiln's fuel: enough for every program the generator writes that does not loop long.
const KILN_FUEL: u64 = 3_000_000;
/// QuickJS calls its interrupt handler about every 10,000 steps.
const QUICKJS_INTERRUPTS: u32 = 400;
const HEAP_BYTES: usize = 64 << 20;

/// The lines Kiln prints, or None when a budget stopped it.
fn run_kiln(source: &str) -> Option<(Vec<String>, End)> {
    let options = Options {
        limits: Limits {
            fuel: Some(KILN_FUEL),
            max_heap_bytes: HEAP_BYTES,
            ..Limits::default()
        },
        random_seed: Some(1),
        clock: Some(Rc::new(|| 0.0)),
        ..Options::default()
    };
    let mut rt = Runtime::with_options(options).expect("a runtime");
    let lines = Rc::new(RefCell::new(Vec::new()));
    let sink = lines.clone();
    rt.register_host_function("__out", move |args: &[HostValue]| {
        let line = args
            .first()
            .and_then(HostValue::as_str)
            .unwrap_or("<not a string>");
        sink.borrow_mut().push(line.to_string());
        Ok(HostValue::Undefined)
    });
    rt.run_script(PRELUDE, "prelude.js")
        .expect("the prelude runs on Kiln");
    let end = match rt.run_script(source, "program.js") {
        Ok(_) => End::Done,
        Err(e) => match e.kind {
            ErrorKind::Syntax | ErrorKind::Exception => End::Uncaught(e.name),
            ErrorKind::Engine => panic!("Kiln failed internally: {}\n{source}", e.summary),
            _ => return None,
        },
    };
    let lines = lines.borrow().clone();
    Some((lines, end))
}

/// The lines QuickJS-NG prints, or None when one of its limits stopped it.
fn run_quickjs(source: &str) -> Option<(Vec<String>, End)> {
    use rquickjs::context::EvalOptions;
    use rquickjs::{CatchResultExt, CaughtError, Context, Function, Runtime};

    let runtime = Runtime::new().expect("a QuickJS runtime");
    runtime.set_memory_limit(HEAP_BYTES);
    runtime.set_max_stack_size(1 << 20);
    let interrupted = Rc::new(Cell::new(false));
    let flag = interrupted.clone();
    let mut calls = 0;
    runtime.set_interrupt_handler(Some(Box::new(move || {
        calls += 1;
        if calls > QUICKJS_INTERRUPTS {
            flag.set(true);
        }
        flag.get()
    })));
    let context = Context::full(&runtime).expect("a QuickJS context");
    let lines = Rc::new(RefCell::new(Vec::new()));
    let internal_error = Cell::new(false);
    let mut end = End::Done;
    context.with(|ctx| {
        let sink = lines.clone();
        let out = Function::new(ctx.clone(), move |line: String| {
            sink.borrow_mut().push(line);
        })
        .expect("the __out function");
        ctx.globals().set("__out", out).expect("__out defined");
        for (name, code) in [("prelude.js", PRELUDE), ("program.js", source)] {
            let mut options = EvalOptions::default();
            options.strict = false;
            options.filename = Some(name.to_string());
            let result: rquickjs::Result<()> = ctx.eval_with_options(code, options);
            match result.catch(&ctx) {
                Ok(()) => {}
                Err(CaughtError::Exception(e)) => {
                    let name: String = e
                        .get::<_, rquickjs::Value>("constructor")
                        .ok()
                        .and_then(|c| c.as_object().and_then(|c| c.get::<_, String>("name").ok()))
                        .unwrap_or_default();
                    match name.as_str() {
                        "InternalError" => internal_error.set(true),
                        _ => end = End::Uncaught(name),
                    }
                    return;
                }
                // not a JavaScript exception: the harness gave QuickJS something it
                // cannot take
                Err(other) => panic!("QuickJS refused the program: {other}\n{code}"),
            }
        }
    });
    if end == End::Done {
        loop {
            match runtime.execute_pending_job() {
                Ok(true) => continue,
                Ok(false) => break,
                Err(_) => {
                    end = End::Uncaught("job".into());
                    break;
                }
            }
        }
    }
    if interrupted.get() || internal_error.get() {
        return None;
    }
    let lines = lines.borrow().clone();
    // An InternalError caught by the program (out of memory, too much recursion) is
    // QuickJS's limit, not a difference.
    if lines.iter().any(|l| l.contains("InternalError")) {
        return None;
    }
    Some((lines, end))
}

/// As many statements as the bytes make (24 at most).
fn program(data: &[u8]) -> Program {
    let mut u = Unstructured::new(data);
    let mut items = Vec::new();
    while !u.is_empty() && items.len() < 24 {
        match Stmt::arbitrary(&mut u) {
            Ok(s) => items.push(s),
            Err(_) => break,
        }
    }
    Program { items }
}

fuzz_target!(|data: &[u8]| {
    let program = program(data);
    let source = render(&program);
    let kiln = run_kiln(&source);
    let quickjs = run_quickjs(&source);
    // `DIFFERENTIAL_SHOW=1 target/.../differential FILE` shows what an input runs
    if std::env::var_os("DIFFERENTIAL_SHOW").is_some() {
        eprintln!("{source}\n--- kiln ---\n{kiln:?}\n--- quickjs ---\n{quickjs:?}");
    }
    let (Some(kiln), Some(quickjs)) = (kiln, quickjs) else {
        return;
    };
    if kiln != quickjs {
        let mut report = String::new();
        let (kl, ql) = (&kiln.0, &quickjs.0);
        for i in 0..kl.len().max(ql.len()) {
            let k = kl.get(i).map(String::as_str).unwrap_or("<none>");
            let q = ql.get(i).map(String::as_str).unwrap_or("<none>");
            let mark = if k == q { "  " } else { "!!" };
            let _ = writeln!(report, "{mark} kiln:    {k}\n{mark} quickjs: {q}");
        }
        panic!(
            "Kiln and QuickJS-NG differ\n--- program ---\n{source}\n--- output ---\n{report}\
             --- end ---\nkiln: {:?}\nquickjs: {:?}",
            kiln.1, quickjs.1
        );
    }
});
