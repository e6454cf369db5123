//! The same generated program on Kiln and on QuickJS-NG prints the same lines.
//!
//! The fuzzer's bytes choose a small program (`Program`, built with `arbitrary`):
//! variables, functions, loops, `try`, objects, arrays, strings, number formatting,
//! regular expressions, JSON, `Math`, promise jobs, and calls of the built-ins on them;
//! and the forms that the engine's specialised instructions and fast paths take:
//! switches whose cases are int32 literals (jump tables), `typeof x === "name"` tests,
//! calls of plain names (in and out of `with`, through direct and indirect `eval`),
//! objects grown and shrunk around their inline slots, array holes written by index
//! (with indexed properties on the prototypes), `JSON.parse` of generated texts, and
//! two matches of one regular expression.
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
// the receiver a function saw, without showing the global object
function thisKind(t) {
  return t === globalThis ? 'global' : t === undefined ? 'undefined' : t === null ? 'null' : typeof t;
}
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
    IntSwitch(Selector, Vec<(IntCase, Vec<Stmt>, bool)>),
    TdzTypeof(TypeName, CmpOp, bool),
    With(Expr, Vec<Stmt>),
    DoWhile(u8, Vec<Stmt>),
    ProtoIndex(bool, u8, ProtoDesc, Vec<Stmt>),
}

/// What a switch over int32 cases tests: any expression, one chosen value, or each
/// value of a short range in turn (so that one switch takes several of its cases).
#[derive(Arbitrary, Debug)]
enum Selector {
    Expr(Expr),
    Value(u8),
    Small(i8),
    Range(i8, u8),
}

/// A case test: int32 literals (dense, sparse, written unusually, duplicated), a
/// non-literal or non-int32 test among them, or `default` anywhere.
#[derive(Arbitrary, Debug)]
enum IntCase {
    Small(i8),
    Wide(i16),
    Written(u8),
    Expr(Expr),
    Default,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum CmpOp {
    StrictEq,
    Eq,
    StrictNe,
    Ne,
}

/// The other side of a `typeof` comparison.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum TypeName {
    Known(u8),
    Unusual(u8),
    Computed(u8),
}

#[derive(Arbitrary, Debug)]
enum TypeofSubject {
    Expr(Box<Expr>),
    Undeclared(u8),
    Var(u8),
    Global(u8),
    Typeof(Box<Expr>),
}

/// How a callee that is not a property is written.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum CallForm {
    Plain,
    Paren,
    Comma,
    Cond,
    Optional,
    Tagged,
    Member,
    CallMethod,
    Iife,
    IifeStrict,
}

/// Which function such a call reaches.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Callee {
    Defined(u8),
    Native(u8),
    Var(u8),
    Undeclared,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum EvalForm {
    Direct,
    Paren,
    Indirect,
    Optional,
}

#[derive(Arbitrary, Debug)]
enum ShapeOp {
    Add(u8, Expr),
    Set(u8, Expr),
    Delete(u8),
    Read(u8),
    Getter(u8),
    Freeze,
}

#[derive(Arbitrary, Debug)]
enum HoleOp {
    Write(u8, Expr),
    Delete(u8),
    SetLength(u8),
    Push(Expr),
    Read(u8),
    Has(u8),
    Fill(u8, u8),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum ProtoDesc {
    Value,
    ReadOnly,
    Accessor,
    GetterOnly,
}

#[derive(Arbitrary, Debug)]
enum JsonValue {
    Object(Vec<(u8, JsonValue)>),
    Array(Vec<JsonValue>),
    Int(i32),
    Number(u8),
    Str(u8),
    True,
    False,
    Null,
}

/// What is done with a parsed JSON text.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum JsonUse {
    Show,
    Repeated,
    Mutated,
    Twice,
    Reviver,
    Dropping,
    Keys,
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
    TypeofIs(TypeofSubject, TypeName, CmpOp, bool),
    CallVia(CallForm, Callee, Vec<Expr>),
    ThisKind,
    Eval(EvalForm, u8),
    Shaped(u8, Vec<Expr>, Vec<ShapeOp>),
    HoleArray(u8, Vec<HoleOp>),
    JsonParse(JsonValue, JsonUse),
    RegexTwice(u8, Box<Expr>, Box<Expr>),
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

/// Case tests that are int32 values written in other ways, and near misses.
const WRITTEN_CASES: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2147483647",
    "-2147483648",
    "2147483648",
    "-2147483649",
    "1.0",
    "0x10",
    "1e1",
    "+1",
    "-(1)",
    "1.5",
    "\"1\"",
    "NaN",
    "-0x1",
    "0b11",
    "4294967297",
    "1n",
];

/// Values a switch over int32 cases is given.
const SELECTED: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "3",
    "5",
    "10",
    "4294967297",
    "-4294967295",
    "1.5",
    "\"1\"",
    "true",
    "null",
    "undefined",
    "NaN",
    "2147483648",
    "-2147483648",
    "2147483647",
    "new Number(1)",
    "1n",
    "0.0",
    "2 ** 31",
    "-(2 ** 31)",
    "16",
    "7 - 8",
];

const TYPE_NAMES: &[&str] = &[
    "undefined",
    "object",
    "boolean",
    "number",
    "bigint",
    "string",
    "symbol",
    "function",
];

/// `typeof` compared with something no `typeof` returns, or a type name written
/// unusually (an escape, another quote).
const UNUSUAL_TYPE_NAMES: &[&str] = &[
    "\"\"",
    "\"String\"",
    "\"null\"",
    "\"array\"",
    "\"strin\"",
    "\"string \"",
    "\"undefined\\u0000\"",
    "\"\\u0073tring\"",
    "'object'",
    "`number`",
    "0",
    "undefined",
    "null",
    "\"\\x66unction\"",
];

/// A type name that is not a literal.
const COMPUTED_TYPE_NAMES: &[&str] = &[
    "(\"str\" + \"ing\")",
    "v1",
    "String(undefined)",
    "(typeof 0)",
    "[\"object\"][0]",
];

/// Functions called by a plain name.
const NATIVES: &[&str] = &[
    "String", "Number", "Boolean", "parseInt", "isNaN", "Array", "Object", "Symbol", "BigInt",
    "thisKind", "eval", "print",
];

const EVAL_SOURCES: &[&str] = &[
    "v0",
    "typeof a",
    "typeof b",
    "thisKind(this)",
    "1 + 1",
    "(function () { return typeof a; })()",
    "var evx = 5; evx",
    "typeof evx",
    "typeof arguments",
    "let evl = 2; evl",
    "a = 7; a",
    "(() => thisKind(this))()",
    // a function declared by eval, called by its plain name (`this` is undefined)
    "var evf = function () { 'use strict'; return thisKind(this); }; evf()",
    "typeof evf === 'function' ? [evf(), (evf)(), (0, evf)()] : 'none'",
];

/// Arrays whose holes the index writes fill: holey literals, preallocated, frozen.
const HOLEY: &[&str] = &[
    "[1, , 3]",
    "[, , ]",
    "[]",
    "[0]",
    "new Array(5)",
    "Array(3)",
    "[1, 2, 3, 4, 5, 6, 7, 8]",
    "[, 'x', , 'y']",
    "Object.freeze([1, , 3])",
    "Object.seal([1, , 3])",
    "Object.preventExtensions([1, , 3])",
    "[1.5, , -0]",
    "Array.from({ length: 3 })",
    "[1, 2, 3].concat([, 5])",
];

const HOLE_INDEXES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "7",
    "10",
    "100",
    "-1",
    "-0",
    "\"1\"",
    "1.5",
    "4294967294",
    "4294967295",
    "X.length",
    "X.length + 1",
    "X.length - 1",
];

const JSON_KEYS: &[&str] = &[
    "a",
    "b",
    "c",
    "k0",
    "k1",
    "k2",
    "k3",
    "k4",
    "0",
    "1",
    "10",
    "__proto__",
    "",
    "a b",
    "\\u00e9",
    "constructor",
    "length",
    "-1",
    "01",
    "4294967295",
    "\\\"q",
];

/// JSON number texts (`1E+2`, `-0`, exponents QuickJS and Kiln parse alike).
const JSON_NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1.5",
    "1e2",
    "1E+2",
    "-1e-7",
    "1e400",
    "0.1",
    "123456789012",
    "9007199254740993",
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
    /// inside a `switch` (where `break` may stand outside a loop)
    in_switch: bool,
    /// in strict code (where `with` is a SyntaxError)
    strict: bool,
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
                            in_switch: true,
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
            Stmt::Break if scope.in_loop || scope.in_switch => self.out.push_str("break; "),
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
                    in_switch: false,
                    strict: kind % 3 == 2,
                };
                self.out.push_str("{ ");
                if body_scope.strict {
                    self.out.push_str("'use strict'; ");
                }
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
                        in_switch: false,
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
                        in_switch: false,
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
                    in_switch: false,
                    strict: true,
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
            Stmt::IntSwitch(selector, arms) => {
                let d = scope.depth;
                self.out.push_str("{ ");
                let looped = match selector {
                    Selector::Expr(e) => {
                        self.out.push_str("switch (");
                        self.expr(e, inner);
                        false
                    }
                    Selector::Value(i) => {
                        let v = SELECTED[*i as usize % SELECTED.len()];
                        let _ = write!(self.out, "switch ({v}");
                        false
                    }
                    Selector::Small(i) => {
                        let _ = write!(self.out, "switch ({}", small_case(*i));
                        false
                    }
                    Selector::Range(from, n) => {
                        let from = small_case(*from);
                        let _ = write!(
                            self.out,
                            "for (let s{d} = {from}; s{d} < {}; s{d}++) switch (s{d}",
                            from + i32::from(n % 12)
                        );
                        true
                    }
                };
                self.out.push_str(") { ");
                let body_scope = Scope {
                    in_switch: true,
                    in_loop: scope.in_loop || looped,
                    ..scope
                };
                let mut default = false;
                for (n, (case, body, brk)) in arms.iter().take(10).enumerate() {
                    match case {
                        IntCase::Small(i) => {
                            let _ = write!(self.out, "case {}: ", small_case(*i));
                        }
                        IntCase::Wide(i) => {
                            let _ = write!(self.out, "case {}: ", i32::from(*i) * 3);
                        }
                        IntCase::Written(i) => {
                            let c = WRITTEN_CASES[*i as usize % WRITTEN_CASES.len()];
                            let _ = write!(self.out, "case {c}: ");
                        }
                        IntCase::Expr(e) => {
                            self.out.push_str("case ");
                            self.expr(e, inner);
                            self.out.push_str(": ");
                        }
                        // a second `default` is a SyntaxError: made a case instead
                        IntCase::Default if default => {
                            let _ = write!(self.out, "case {n}: ");
                        }
                        IntCase::Default => {
                            default = true;
                            self.out.push_str("default: ");
                        }
                    }
                    // which case ran, so that fall-through shows
                    let _ = write!(self.out, "print({n}); ");
                    if scope.depth < MAX_DEPTH {
                        self.stmts(
                            body,
                            Scope {
                                depth: scope.depth + 1,
                                ..body_scope
                            },
                        );
                    }
                    if *brk {
                        self.out.push_str("break; ");
                    }
                }
                self.out.push_str("} } ");
            }
            Stmt::TdzTypeof(name, op, closure) => {
                // `typeof` of a binding in its temporal dead zone throws
                let d = scope.depth;
                self.out.push_str("{ ");
                if *closure {
                    let _ = write!(self.out, "const g{d} = () => (typeof t{d} ");
                    self.type_test(*name, *op);
                    let _ = write!(
                        self.out,
                        "); try {{ print(g{d}()); }} catch (e) {{ caught(e); }} let t{d} = 'x'; print(g{d}()); "
                    );
                } else {
                    let _ = write!(self.out, "print(typeof t{d} ");
                    self.type_test(*name, *op);
                    let _ = write!(self.out, "); let t{d} = 1; ");
                }
                self.out.push_str("} ");
            }
            Stmt::With(..) if scope.strict => {}
            Stmt::With(e, body) => {
                // a plain call inside `with` takes the object as its receiver
                self.out
                    .push_str("with ({ g: function () { return thisKind(this); }, c: ");
                self.expr(e, inner);
                self.out
                    .push_str(" }) { print(g()); print((g)()); print((0, g)()); print(typeof c === 'object'); ");
                if scope.depth < MAX_DEPTH {
                    self.stmts(body, inner);
                }
                self.out.push_str("} ");
            }
            Stmt::DoWhile(n, body) => {
                let i = scope.depth;
                let _ = write!(self.out, "{{ let d{i} = {}; do ", n % 5);
                self.block(
                    body,
                    Scope {
                        in_loop: true,
                        ..scope
                    },
                );
                let _ = write!(self.out, "while (d{i}-- > 0); }} ");
            }
            Stmt::ProtoIndex(array, index, desc, body) => {
                // an index on a prototype: a hole read finds it, a hole write meets its
                // setter or its read-only value
                let proto = if *array {
                    "Array.prototype"
                } else {
                    "Object.prototype"
                };
                let desc = match desc {
                    ProtoDesc::Value => "{ value: 'proto', writable: true, configurable: true }",
                    ProtoDesc::ReadOnly => {
                        "{ value: 'read-only', writable: false, configurable: true }"
                    }
                    ProtoDesc::Accessor => {
                        "{ get() { return 'got'; }, set(v) { print('set'); }, configurable: true }"
                    }
                    ProtoDesc::GetterOnly => "{ get() { return 'got'; }, configurable: true }",
                };
                let _ = write!(
                    self.out,
                    "try {{ Object.defineProperty({proto}, {}, {desc}); ",
                    index % 6
                );
                if scope.depth < MAX_DEPTH {
                    self.stmts(body, inner);
                }
                let _ = write!(self.out, "}} finally {{ delete {proto}[{}]; }} ", index % 6);
            }
        }
    }

    /// ` OP name` after a `typeof` operand.
    fn type_test(&mut self, name: TypeName, op: CmpOp) {
        let _ = write!(self.out, "{} ", cmp_op(op));
        self.type_name(name);
    }

    fn type_name(&mut self, name: TypeName) {
        match name {
            TypeName::Known(i) => {
                let _ = write!(
                    self.out,
                    "\"{}\"",
                    TYPE_NAMES[i as usize % TYPE_NAMES.len()]
                );
            }
            TypeName::Unusual(i) => {
                self.out
                    .push_str(UNUSUAL_TYPE_NAMES[i as usize % UNUSUAL_TYPE_NAMES.len()]);
            }
            TypeName::Computed(i) => {
                self.out
                    .push_str(COMPUTED_TYPE_NAMES[i as usize % COMPUTED_TYPE_NAMES.len()]);
            }
        }
    }

    /// A callee written as a plain name.
    fn callee(&self, callee: Callee) -> String {
        match callee {
            Callee::Defined(f) if self.functions > 0 => format!("f{}", f as usize % self.functions),
            Callee::Defined(f) | Callee::Native(f) => {
                NATIVES[f as usize % NATIVES.len()].to_string()
            }
            Callee::Var(v) => format!("v{}", v % 6),
            Callee::Undeclared => "undeclared0".to_string(),
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
                let v = v % 6;
                // a comparison has no compound form (`v <== x` would make the whole
                // program a SyntaxError): assigned its result instead
                if matches!(
                    op,
                    BinOp::Eq
                        | BinOp::Ne
                        | BinOp::StrictEq
                        | BinOp::StrictNe
                        | BinOp::Lt
                        | BinOp::Gt
                        | BinOp::Le
                        | BinOp::Ge
                ) {
                    let _ = write!(self.out, "(v{v} = v{v} {} ", bin_op(*op));
                } else {
                    let _ = write!(self.out, "(v{v} {}= ", bin_op(*op));
                }
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
            Expr::TypeofIs(subject, name, op, swapped) => {
                self.out.push('(');
                if *swapped {
                    self.type_name(*name);
                    let _ = write!(self.out, " {} ", cmp_op(*op));
                }
                self.out.push_str("typeof ");
                match subject {
                    TypeofSubject::Expr(x) => self.paren(x, inner),
                    TypeofSubject::Undeclared(i) => {
                        let _ = write!(self.out, "undeclared{}", i % 3);
                    }
                    TypeofSubject::Var(v) => {
                        let _ = write!(self.out, "v{}", v % 6);
                    }
                    TypeofSubject::Global(i) => {
                        let name = [
                            "globalThis.nothing",
                            "globalThis",
                            "print",
                            "Symbol.iterator",
                        ];
                        self.out.push_str(name[*i as usize % name.len()]);
                    }
                    TypeofSubject::Typeof(x) => {
                        self.out.push_str("typeof ");
                        self.paren(x, inner);
                    }
                }
                if !*swapped {
                    self.out.push(' ');
                    self.type_test(*name, *op);
                }
                self.out.push(')');
            }
            Expr::CallVia(form, callee, args) => {
                let f = self.callee(*callee);
                match form {
                    CallForm::Plain => {
                        let _ = write!(self.out, "{f}(");
                    }
                    CallForm::Paren => {
                        let _ = write!(self.out, "({f})(");
                    }
                    CallForm::Comma => {
                        let _ = write!(self.out, "(0, {f})(");
                    }
                    CallForm::Cond => {
                        let _ = write!(self.out, "(v0 ? {f} : thisKind)(");
                    }
                    CallForm::Optional => {
                        let _ = write!(self.out, "{f}?.(");
                    }
                    CallForm::Tagged => {
                        // the template object and one substitution
                        let _ = write!(self.out, "{f}`t${{");
                        if let Some(a) = args.first() {
                            self.expr(a, inner);
                        }
                        self.out.push_str("}`");
                        return;
                    }
                    CallForm::Member => {
                        let _ = write!(self.out, "({{ m: {f} }}).m(");
                    }
                    CallForm::CallMethod => {
                        let _ = write!(self.out, "{f}.call(");
                    }
                    CallForm::Iife => {
                        self.out
                            .push_str("(function (a, b) { return [thisKind(this), a, b]; })(");
                    }
                    CallForm::IifeStrict => {
                        self.out.push_str(
                            "(function (a, b) { 'use strict'; return [thisKind(this), a, b]; })(",
                        );
                    }
                }
                self.args(args, inner, 2);
                self.out.push(')');
            }
            Expr::ThisKind => self.out.push_str("thisKind(this)"),
            Expr::Eval(form, i) => {
                let source = EVAL_SOURCES[*i as usize % EVAL_SOURCES.len()];
                // a parenthesised `eval` is still direct; `(0, eval)` and `eval?.()` are not
                let callee = match form {
                    EvalForm::Direct => "eval(",
                    EvalForm::Paren => "(eval)(",
                    EvalForm::Indirect => "(0, eval)(",
                    EvalForm::Optional => "eval?.(",
                };
                self.out.push_str(callee);
                self.string(source);
                self.out.push(')');
            }
            Expr::Shaped(n, values, ops) => {
                // an object of 0..6 properties, then grown, shrunk and read, around the
                // number of property values an object keeps inline
                let p = scope.lambdas;
                let lambda = Scope {
                    lambdas: p + 1,
                    ..inner
                };
                let _ = write!(self.out, "((p{p}) => {{ ");
                for op in ops.iter().take(6) {
                    match op {
                        ShapeOp::Add(k, e) | ShapeOp::Set(k, e) => {
                            let k = if matches!(op, ShapeOp::Add(..)) {
                                k % 4 + 6
                            } else {
                                k % 10
                            };
                            let _ = write!(self.out, "p{p}.k{k} = ");
                            self.expr(e, lambda);
                            self.out.push_str("; ");
                        }
                        ShapeOp::Delete(k) => {
                            let _ = write!(self.out, "print(delete p{p}.k{}); ", k % 10);
                        }
                        ShapeOp::Read(k) => {
                            let _ = write!(self.out, "print(p{p}.k{}); ", k % 10);
                        }
                        ShapeOp::Getter(k) => {
                            let _ = write!(
                                self.out,
                                "Object.defineProperty(p{p}, 'k{}', {{ get() {{ return 'got'; }}, enumerable: true, configurable: true }}); ",
                                k % 10
                            );
                        }
                        ShapeOp::Freeze => {
                            let _ = write!(self.out, "Object.freeze(p{p}); ");
                        }
                    }
                }
                let _ = write!(self.out, "return p{p}; }})({{ ");
                let count = (n % 7) as usize;
                let start = (n / 7) as usize;
                for i in 0..count {
                    let _ = write!(self.out, "k{}: ", (start + i) % 10);
                    match values.get(i) {
                        Some(v) => self.expr(v, inner),
                        None => {
                            let _ = write!(self.out, "{i}");
                        }
                    }
                    self.out.push_str(", ");
                }
                self.out.push_str("})");
            }
            Expr::HoleArray(base, ops) => {
                let p = scope.lambdas;
                let lambda = Scope {
                    lambdas: p + 1,
                    ..inner
                };
                let x = format!("p{p}");
                let index =
                    |i: &u8| HOLE_INDEXES[*i as usize % HOLE_INDEXES.len()].replace('X', &x);
                let _ = write!(self.out, "(({x}) => {{ ");
                for op in ops.iter().take(8) {
                    match op {
                        HoleOp::Write(i, e) => {
                            let _ = write!(self.out, "{x}[{}] = ", index(i));
                            self.expr(e, lambda);
                            self.out.push_str("; ");
                        }
                        HoleOp::Delete(i) => {
                            let _ = write!(self.out, "delete {x}[{}]; ", index(i));
                        }
                        HoleOp::SetLength(n) => {
                            let _ = write!(self.out, "{x}.length = {}; ", n % 12);
                        }
                        HoleOp::Push(e) => {
                            let _ = write!(self.out, "{x}.push(");
                            self.expr(e, lambda);
                            self.out.push_str("); ");
                        }
                        HoleOp::Read(i) => {
                            let _ = write!(self.out, "print({x}[{}]); ", index(i));
                        }
                        HoleOp::Has(i) => {
                            let _ = write!(self.out, "print({} in {x}); ", index(i));
                        }
                        HoleOp::Fill(n, step) => {
                            let _ = write!(
                                self.out,
                                "for (let j{p} = 0; j{p} < {}; j{p} += {}) {x}[j{p}] = j{p}; ",
                                n % 12,
                                step % 3 + 1
                            );
                        }
                    }
                }
                // the first elements only: a write at index 4294967294 makes the length
                // 2 ** 32 - 1, and QuickJS joins an array that long without calling its
                // interrupt handler (a program that converts it to a string never ends)
                let _ = write!(
                    self.out,
                    "return [{x}.slice(0, 12), {x}.length]; }})({})",
                    HOLEY[*base as usize % HOLEY.len()]
                );
            }
            Expr::JsonParse(value, usage) => {
                let mut text = String::new();
                json_text(value, 0, &mut text);
                if matches!(usage, JsonUse::Repeated) {
                    // the same shape again and again
                    text = format!("[{text},{text},{text}]");
                }
                // the JSON text as a string literal, its backslashes kept
                let mut literal = String::new();
                std::mem::swap(&mut self.out, &mut literal);
                self.string(&text.replace('\\', "\\\\"));
                std::mem::swap(&mut self.out, &mut literal);
                let p = scope.lambdas;
                let _ = match usage {
                    JsonUse::Show | JsonUse::Repeated => {
                        write!(self.out, "JSON.parse({literal})")
                    }
                    JsonUse::Keys => write!(
                        self.out,
                        "[JSON.parse({literal}), Object.keys(JSON.parse({literal}) ?? 0)]"
                    ),
                    // a parsed object's shape is shared: a change to one object must not
                    // reach the next
                    JsonUse::Mutated => write!(
                        self.out,
                        "((p{p}) => {{ if (p{p} && typeof p{p} === 'object') {{ p{p}.a = 'changed'; delete p{p}.b; p{p}.z = 1; }} return [p{p}, JSON.parse({literal})]; }})(JSON.parse({literal}))"
                    ),
                    JsonUse::Twice => {
                        write!(self.out, "[JSON.parse({literal}), JSON.parse({literal})]")
                    }
                    JsonUse::Reviver => write!(
                        self.out,
                        "JSON.parse({literal}, (k, v) => typeof v === 'number' ? v + 1 : v)"
                    ),
                    JsonUse::Dropping => write!(
                        self.out,
                        "JSON.parse({literal}, function (k, v) {{ if (k === 'a') this.extra = 1; return k === 'b' ? undefined : v; }})"
                    ),
                };
            }
            Expr::RegexTwice(i, a, b) => {
                // two matches of one regular expression: the first's captures must
                // survive the second
                let re = REGEXES[*i as usize % REGEXES.len()];
                let p = scope.lambdas;
                let _ = write!(self.out, "((p{p}) => {{ const x = p{p}.exec(String(");
                self.expr(a, inner);
                let _ = write!(self.out, ")); const y = p{p}.exec(String(");
                self.expr(b, inner);
                let _ = write!(
                    self.out,
                    ")); return [x, y, x && x.index, x && x.groups, y && y.index, p{p}.lastIndex]; }})({re})"
                );
            }
        }
    }
}

fn cmp_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::StrictEq => "===",
        CmpOp::Eq => "==",
        CmpOp::StrictNe => "!==",
        CmpOp::Ne => "!=",
    }
}

/// -4 ..= 7: dense case values that repeat.
fn small_case(i: i8) -> i32 {
    i32::from(i).rem_euclid(12) - 4
}

/// A JSON text of `value`, nested 4 deep at most, 8 members a level.
fn json_text(value: &JsonValue, depth: u32, out: &mut String) {
    match value {
        JsonValue::Object(members) if depth < 4 => {
            out.push('{');
            for (i, (k, v)) in members.iter().take(8).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "\"{}\":", JSON_KEYS[*k as usize % JSON_KEYS.len()]);
                json_text(v, depth + 1, out);
            }
            out.push('}');
        }
        JsonValue::Array(items) if depth < 4 => {
            out.push('[');
            for (i, v) in items.iter().take(8).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_text(v, depth + 1, out);
            }
            out.push(']');
        }
        JsonValue::Object(_) | JsonValue::Array(_) => out.push_str("{}"),
        JsonValue::Int(i) => {
            let _ = write!(out, "{i}");
        }
        JsonValue::Number(i) => out.push_str(JSON_NUMBERS[*i as usize % JSON_NUMBERS.len()]),
        JsonValue::Str(i) => {
            let _ = write!(out, "\"{}\"", JSON_KEYS[*i as usize % JSON_KEYS.len()]);
        }
        JsonValue::True => out.push_str("true"),
        JsonValue::False => out.push_str("false"),
        JsonValue::Null => out.push_str("null"),
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
        in_switch: false,
        strict: false,
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
