//! The compiled-program format as bytes: [`encode`] writes a [`Script`], [`decode`] reads
//! one back from bytes it does not trust. Every read is bounds-checked and every count is
//! bounded by the bytes left, so any input gives a script or a [`DecodeError`]; a decoded
//! script is then checked by [`crate::validate`] before a VM may load it.
//!
//! Layout: little-endian fixed-width numbers, counts and lengths as LEB128, strings as
//! UTF-8 (UTF-16 names and constants as u16 sequences), each instruction as its opcode (the
//! number in the table below) followed by its operands in declaration order. The table is
//! the one place that names each instruction's operands and their kinds: encoding,
//! decoding and operand validation are generated from it, and the compiler refuses a
//! table that misses an instruction (the encoder's `match` must be exhaustive).

use crate::*;

/// Why bytes are not a script.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    /// the byte offset where reading failed
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for DecodeError {}

/// Why a script cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

/// The script as bytes. A script with direct `eval` cannot be encoded (its scope
/// descriptions stay in memory only).
pub fn encode(script: &Script) -> Result<Vec<u8>, EncodeError> {
    let mut w = Writer(Vec::new());
    w.script(script)?;
    Ok(w.0)
}

/// A script from bytes [`encode`] wrote; trailing bytes are an error.
pub fn decode(bytes: &[u8]) -> Result<Script, DecodeError> {
    let mut r = Reader { bytes, at: 0 };
    let script = r.script()?;
    if r.at != bytes.len() {
        return Err(r.error("trailing bytes after the script"));
    }
    // (the encoder refuses direct eval through its scope constants; a crafted call
    // without one is refused here)
    let direct_eval = script.functions.iter().any(|f| {
        f.instructions
            .iter()
            .any(|i| matches!(i, Instr::CallEval { .. }))
    });
    if direct_eval {
        return Err(r.error("direct eval is not supported in precompiled code"));
    }
    Ok(script)
}

pub(crate) struct Writer(Vec<u8>);

pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// A value with a fixed encoding: instruction operands and the small enums.
pub(crate) trait Field: Sized {
    fn write(&self, w: &mut Writer);
    fn read(r: &mut Reader) -> Result<Self, DecodeError>;
}

macro_rules! le_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            fn write(&self, w: &mut Writer) {
                w.0.extend_from_slice(&self.to_le_bytes());
            }
            // (inlined: operands are most of what a decoder reads)
            #[inline]
            fn read(r: &mut Reader) -> Result<Self, DecodeError> {
                Ok(<$t>::from_le_bytes(r.array()?))
            }
        }
    )*};
}
le_field!(u8, u16, i16, i32, u32, f64);

impl Field for bool {
    fn write(&self, w: &mut Writer) {
        w.0.push(*self as u8);
    }
    fn read(r: &mut Reader) -> Result<Self, DecodeError> {
        match u8::read(r)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(r.error(format!("invalid boolean {b}"))),
        }
    }
}

/// A field-less enum as one byte: its variants in order.
macro_rules! enum_field {
    ($t:ident { $($variant:ident),* $(,)? }) => {
        impl Field for $t {
            fn write(&self, w: &mut Writer) {
                let all = [$($t::$variant),*];
                let index = all.iter().position(|v| v == self).unwrap_or(0);
                w.0.push(index as u8);
            }
            fn read(r: &mut Reader) -> Result<Self, DecodeError> {
                let all = [$($t::$variant),*];
                let index = u8::read(r)? as usize;
                all.get(index).copied().ok_or_else(|| {
                    r.error(format!("invalid {} {index}", stringify!($t)))
                })
            }
        }
    };
}
enum_field!(MethodKind {
    ObjectMethod,
    ObjectGetter,
    ObjectSetter,
    ClassMethod,
    ClassGetter,
    ClassSetter
});
enum_field!(TypeName {
    Undefined,
    Object,
    Boolean,
    Number,
    String,
    Symbol,
    BigInt,
    Function
});
enum_field!(GlobalDeclaration {
    Lexical,
    Var,
    Function
});
enum_field!(ErrorKind {
    TypeError,
    ReferenceError,
    SyntaxError,
    RangeError
});
enum_field!(ScriptKind {
    Script,
    Module,
    Eval
});
enum_field!(FunctionKind {
    Normal,
    Arrow,
    Method,
    ClassConstructor,
    DerivedConstructor,
    Generator,
    Async,
    AsyncArrow,
    AsyncGenerator,
    Script,
});

/// What an instruction operand refers to, for validation.
pub(crate) trait OperandVisitor {
    type Error;
    fn reg(&mut self, r: Reg) -> Result<(), Self::Error>;
    fn constant(&mut self, c: ConstIdx) -> Result<(), Self::Error>;
    fn site(&mut self, s: Site) -> Result<(), Self::Error>;
    fn jump(&mut self, offset: Offset) -> Result<(), Self::Error>;
    fn switch_table(&mut self, table: u16) -> Result<(), Self::Error>;
    /// a plain value (a count, an immediate, an enum): anything decoded is valid
    fn plain<T>(&mut self, _value: T) -> Result<(), Self::Error> {
        Ok(())
    }
}

macro_rules! instruction_table {
    ($($op:literal $name:ident $({ $($field:ident : $kind:ident),* $(,)? })?),* $(,)?) => {
        impl Writer {
            fn instr(&mut self, instr: &Instr) {
                match *instr {
                    $(Instr::$name $({ $($field),* })? => {
                        self.0.push($op);
                        $($( $field.write(self); )*)?
                    })*
                }
            }
        }

        impl Reader<'_> {
            fn instr(&mut self) -> Result<Instr, DecodeError> {
                let at = self.at;
                Ok(match u8::read(self)? {
                    $($op => Instr::$name $({ $($field: Field::read(self)?),* })?,)*
                    op => {
                        self.at = at;
                        return Err(self.error(format!("unknown instruction {op}")));
                    }
                })
            }
        }

        /// Visit each operand of `instr` by its kind.
        pub(crate) fn visit_operands<V: OperandVisitor>(
            instr: &Instr,
            v: &mut V,
        ) -> Result<(), V::Error> {
            match *instr {
                $(Instr::$name $({ $($field),* })? => {
                    $($( v.$kind($field)?; )*)?
                })*
            }
            Ok(())
        }
    };
}

instruction_table! {
    0 Mov { dst: reg, src: reg },
    1 LoadConst { dst: reg, idx: constant },
    2 LoadInt { dst: reg, value: plain },
    3 LoadUndefined { dst: reg },
    4 LoadNull { dst: reg },
    5 LoadTrue { dst: reg },
    6 LoadFalse { dst: reg },
    7 LoadHole { dst: reg },
    8 LoadThis { dst: reg },
    9 LoadNewTarget { dst: reg },
    10 LoadCallee { dst: reg },
    11 LoadGlobalObject { dst: reg },
    12 LoadImportMeta { dst: reg },
    13 GetImport { dst: reg, index: plain },
    14 PushEnv { size: plain },
    15 PopEnv,
    16 CloneEnv,
    17 GetEnv { dst: reg, depth: plain, slot: plain },
    18 GetEnvChecked { dst: reg, depth: plain, slot: plain, name: constant },
    19 SetEnv { src: reg, depth: plain, slot: plain },
    20 ThrowIfHole { src: reg, name: constant },
    21 LookupObjectEnv { dst: reg, depth: plain, slot: plain, site: site },
    22 GetBinding { dst: reg, obj: reg, site: site },
    23 SetBinding { obj: reg, src: reg, site: site },
    24 DeclareEvalVar { site: site, depth: plain, slot: plain },
    25 GetGlobal { dst: reg, site: site },
    26 GetGlobalOrUndefined { dst: reg, site: site },
    27 SetGlobal { src: reg, site: site },
    28 CheckGlobalDeclaration { site: site, kind: plain },
    29 DeclareGlobalVar { site: site, deletable: plain },
    30 DeclareGlobalFunction { src: reg, site: site, deletable: plain },
    31 DeclareGlobalLexical { site: site, is_const: plain },
    32 InitGlobalLexical { src: reg, site: site },
    33 GetNamed { dst: reg, obj: reg, site: site },
    34 SetNamed { obj: reg, src: reg, site: site },
    35 GetIndex { dst: reg, obj: reg, key: reg },
    36 GetIndexUpdate { dst: reg, obj: reg, key: reg },
    37 SetIndex { obj: reg, key: reg, src: reg },
    38 DefineNamed { obj: reg, src: reg, site: site },
    39 DefineIndex { obj: reg, key: reg, src: reg },
    40 DefineMethod { obj: reg, key: reg, func: reg, kind: plain },
    41 Delete { dst: reg, obj: reg, key: reg },
    42 LoadSuperBase { dst: reg },
    43 GetSuper { dst: reg, base: reg, key: reg },
    44 SetSuper { base: reg, key: reg, src: reg },
    45 GetPrivate { dst: reg, obj: reg, key: reg },
    46 SetPrivate { obj: reg, key: reg, src: reg },
    47 DefinePrivate { obj: reg, key: reg, src: reg, method: plain },
    48 DefinePrivateAccessor { obj: reg, key: reg, funcs: reg },
    49 HasPrivate { dst: reg, obj: reg, key: reg },
    50 NewPrivateName { dst: reg, desc: constant },
    51 NewObject { dst: reg, capacity: plain },
    52 SetLiteralPrototype { obj: reg, src: reg },
    53 NewArray { dst: reg, capacity: plain },
    54 ArrayPush { arr: reg, src: reg },
    55 ArraySpread { arr: reg, src: reg },
    56 CopyDataProperties { dst: reg, src: reg },
    57 CopyDataPropertiesExcept { dst: reg, src: reg, excluded: reg },
    58 Closure { dst: reg, func: constant },
    59 CreateClass { dst: reg, func: constant, heritage: reg },
    60 SetFunctionName { func: reg, key: reg },
    61 SetHomeObject { func: reg, obj: reg },
    62 SetClassFields { class: reg, init: reg },
    63 InitClassFields,
    64 NewRegExp { dst: reg, idx: constant },
    65 GetTemplateObject { dst: reg, idx: constant },
    66 CreateArguments { dst: reg, mapped: plain },
    67 CreateRestArray { dst: reg, from: plain },
    68 Add { dst: reg, lhs: reg, rhs: reg },
    69 AddImm { dst: reg, lhs: reg, imm: plain },
    70 Sub { dst: reg, lhs: reg, rhs: reg },
    71 Mul { dst: reg, lhs: reg, rhs: reg },
    72 Div { dst: reg, lhs: reg, rhs: reg },
    73 Mod { dst: reg, lhs: reg, rhs: reg },
    74 Exp { dst: reg, lhs: reg, rhs: reg },
    75 BitAnd { dst: reg, lhs: reg, rhs: reg },
    76 BitOr { dst: reg, lhs: reg, rhs: reg },
    77 BitXor { dst: reg, lhs: reg, rhs: reg },
    78 Shl { dst: reg, lhs: reg, rhs: reg },
    79 Shr { dst: reg, lhs: reg, rhs: reg },
    80 UShr { dst: reg, lhs: reg, rhs: reg },
    81 Eq { dst: reg, lhs: reg, rhs: reg },
    82 NotEq { dst: reg, lhs: reg, rhs: reg },
    83 StrictEq { dst: reg, lhs: reg, rhs: reg },
    84 StrictNotEq { dst: reg, lhs: reg, rhs: reg },
    85 Lt { dst: reg, lhs: reg, rhs: reg },
    86 Le { dst: reg, lhs: reg, rhs: reg },
    87 Gt { dst: reg, lhs: reg, rhs: reg },
    88 Ge { dst: reg, lhs: reg, rhs: reg },
    89 InstanceOf { dst: reg, lhs: reg, rhs: reg },
    90 In { dst: reg, lhs: reg, rhs: reg },
    91 Neg { dst: reg, src: reg },
    92 BitNot { dst: reg, src: reg },
    93 Not { dst: reg, src: reg },
    94 TypeOf { dst: reg, src: reg },
    95 ToNumber { dst: reg, src: reg },
    96 ToNumeric { dst: reg, src: reg },
    97 Inc { dst: reg, src: reg },
    98 Dec { dst: reg, src: reg },
    99 ToString { dst: reg, src: reg },
    100 ToPropertyKey { dst: reg, src: reg },
    101 ToObject { dst: reg, src: reg },
    102 ThrowIfNotObject { src: reg },
    103 Jump { offset: jump },
    104 Loop { offset: jump },
    105 JumpIfTrue { src: reg, offset: jump },
    106 JumpIfFalse { src: reg, offset: jump },
    107 JumpIfNullish { src: reg, offset: jump },
    108 JumpIfNotNullish { src: reg, offset: jump },
    109 JumpIfUndefined { src: reg, offset: jump },
    110 JumpIfNotUndefined { src: reg, offset: jump },
    111 JumpIfHole { src: reg, offset: jump },
    112 Throw { src: reg },
    113 ThrowError { kind: plain, msg: constant },
    114 Return { src: reg },
    115 ReturnUndefined,
    116 ReturnDerived { src: reg },
    117 EndFinally { kind: reg },
    118 Call { dst: reg, func: reg, args: reg, argc: plain },
    119 TailCall { func: reg, args: reg, argc: plain },
    120 CallSpread { dst: reg, func: reg, args: reg },
    121 New { dst: reg, func: reg, args: reg, argc: plain },
    122 NewSpread { dst: reg, func: reg, args: reg },
    123 SuperCall { dst: reg, args: reg, argc: plain },
    124 SuperCallSpread { dst: reg, args: reg },
    125 SuperCallForward { dst: reg },
    126 SuperCallFrom { dst: reg, func: reg, args: reg, argc: plain },
    127 CallEval { dst: reg, func: reg, args: reg, argc: plain },
    128 GetIterator { iter: reg, src: reg },
    129 GetAsyncIterator { iter: reg, src: reg },
    130 IteratorNext { dst: reg, iter: reg },
    131 IteratorClose { iter: reg },
    132 IteratorCloseOnThrow { iter: reg },
    133 ForInPrepare { dst: reg, src: reg },
    134 ForInNext { dst: reg, iter: reg },
    135 AddDisposable { list: reg, src: reg, is_async: plain },
    136 DisposeResources { dst: reg, list: reg, kind: reg },
    137 SuppressError { kind: reg, src: reg },
    138 InitialYield,
    139 Yield { dst: reg, src: reg },
    140 Await { dst: reg, src: reg },
    141 YieldDelegate { dst: reg, iter: reg },
    142 YieldDelegateAsync { dst: reg, iter: reg },
    143 Debugger,
    144 ImportDynamic { dst: reg, src: reg, source: plain },
    145 SwitchInt { src: reg, table: switch_table },
    146 CallNoThis { dst: reg, func: reg, args: reg, argc: plain },
    147 TypeOfIs { dst: reg, src: reg, name: plain },
}

impl Writer {
    fn count(&mut self, mut n: usize) {
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                self.0.push(byte);
                return;
            }
            self.0.push(byte | 0x80);
        }
    }

    fn str(&mut self, s: &str) {
        self.count(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }

    fn units(&mut self, units: &[u16]) {
        self.count(units.len());
        for u in units {
            u.write(self);
        }
    }

    fn script(&mut self, script: &Script) -> Result<(), EncodeError> {
        script.kind.write(self);
        self.str(&script.source);
        self.str(&script.source_name);
        self.count(script.functions.len());
        for f in &script.functions {
            self.function(f)?;
        }
        match &script.module {
            None => false.write(self),
            Some(m) => {
                true.write(self);
                self.module(m);
            }
        }
        Ok(())
    }

    fn function(&mut self, f: &FunctionCode) -> Result<(), EncodeError> {
        self.units(&f.name);
        f.kind.write(self);
        f.strict.write(self);
        f.length.write(self);
        f.param_count.write(self);
        f.register_count.write(self);
        self.count(f.instructions.len());
        for i in &f.instructions {
            self.instr(i);
        }
        self.count(f.constants.len());
        for c in &f.constants {
            self.constant(c)?;
        }
        self.count(f.property_sites.len());
        for s in &f.property_sites {
            self.units(s);
        }
        self.count(f.handlers.len());
        for h in &f.handlers {
            h.start.write(self);
            h.end.write(self);
            h.target.write(self);
            h.env_depth.write(self);
            h.reg.write(self);
            h.is_finally.write(self);
        }
        self.count(f.switch_tables.len());
        for t in &f.switch_tables {
            self.count(t.cases.len());
            for (value, target) in &t.cases {
                value.write(self);
                target.write(self);
            }
        }
        self.count(f.positions.len());
        for (pc, offset) in &f.positions {
            pc.write(self);
            offset.write(self);
        }
        f.source_start.write(self);
        f.source_end.write(self);
        Ok(())
    }

    fn constant(&mut self, c: &Constant) -> Result<(), EncodeError> {
        match c {
            Constant::Number(n) => {
                self.0.push(0);
                n.write(self);
            }
            Constant::String(units) => {
                self.0.push(1);
                self.units(units);
            }
            Constant::BigInt(digits) => {
                self.0.push(2);
                self.str(digits);
            }
            Constant::Function(index) => {
                self.0.push(3);
                index.write(self);
            }
            Constant::RegExp { pattern, flags } => {
                self.0.push(4);
                self.units(pattern);
                self.str(flags);
            }
            Constant::Template { cooked, raw } => {
                self.0.push(5);
                self.count(cooked.len());
                for c in cooked {
                    match c {
                        None => false.write(self),
                        Some(units) => {
                            true.write(self);
                            self.units(units);
                        }
                    }
                }
                self.count(raw.len());
                for r in raw {
                    self.units(r);
                }
            }
            Constant::EvalScope(_) => {
                return Err(EncodeError(
                    "code with direct eval cannot be precompiled".into(),
                ));
            }
        }
        Ok(())
    }

    fn module(&mut self, m: &ModuleInfo) {
        self.count(m.requests.len());
        for r in &m.requests {
            self.str(&r.specifier);
            self.count(r.attributes.len());
            for (k, v) in &r.attributes {
                self.str(k);
                self.str(v);
            }
        }
        self.count(m.imports.len());
        for i in &m.imports {
            i.request.write(self);
            self.str(&i.import_name);
            self.str(&i.local_name);
        }
        self.count(m.namespace_imports.len());
        for (request, slot) in &m.namespace_imports {
            request.write(self);
            slot.write(self);
        }
        self.count(m.local_exports.len());
        for (name, slot) in &m.local_exports {
            self.str(name);
            slot.write(self);
        }
        self.count(m.indirect_exports.len());
        for e in &m.indirect_exports {
            self.str(&e.export_name);
            e.request.write(self);
            match &e.import_name {
                None => false.write(self),
                Some(name) => {
                    true.write(self);
                    self.str(name);
                }
            }
        }
        self.count(m.star_exports.len());
        for s in &m.star_exports {
            s.write(self);
        }
        m.env_size.write(self);
        m.init_function.write(self);
        m.has_top_level_await.write(self);
    }
}

impl Reader<'_> {
    fn error(&self, message: impl Into<String>) -> DecodeError {
        DecodeError {
            offset: self.at,
            message: message.into(),
        }
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&[u8], DecodeError> {
        if self.bytes.len() - self.at < n {
            return Err(self.end_of_input());
        }
        let slice = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(slice)
    }

    /// The next `N` bytes.
    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        match self
            .bytes
            .get(self.at..)
            .and_then(|rest| rest.first_chunk::<N>())
        {
            Some(&bytes) => {
                self.at += N;
                Ok(bytes)
            }
            None => Err(self.end_of_input()),
        }
    }

    #[cold]
    fn end_of_input(&self) -> DecodeError {
        self.error("unexpected end of input")
    }

    /// A count of items each at least `item_bytes` long: more than the bytes left could
    /// hold is an error before anything is allocated.
    fn count(&mut self, item_bytes: usize) -> Result<usize, DecodeError> {
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let byte = u8::read(self)?;
            n |= ((byte & 0x7f) as u64) << shift;
            if byte & 0x80 == 0 {
                let left = (self.bytes.len() - self.at) as u64;
                if n.saturating_mul(item_bytes.max(1) as u64) > left {
                    return Err(self.error(format!("a count of {n} is longer than the input")));
                }
                return Ok(n as usize);
            }
        }
        Err(self.error("a count is too long"))
    }

    fn str(&mut self) -> Result<String, DecodeError> {
        let n = self.count(1)?;
        let at = self.at;
        let bytes = self.take(n)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError {
            offset: at,
            message: "a string is not UTF-8".into(),
        })
    }

    fn units(&mut self) -> Result<Vec<u16>, DecodeError> {
        let n = self.count(2)?;
        let bytes = self.take(2 * n)?;
        Ok(bytes
            .chunks_exact(2)
            .map(|unit| u16::from_le_bytes([unit[0], unit[1]]))
            .collect())
    }

    fn list<T>(
        &mut self,
        item_bytes: usize,
        mut item: impl FnMut(&mut Self) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let n = self.count(item_bytes)?;
        let mut items = Vec::with_capacity(n);
        for _ in 0..n {
            items.push(item(self)?);
        }
        Ok(items)
    }

    fn script(&mut self) -> Result<Script, DecodeError> {
        let kind = ScriptKind::read(self)?;
        let source = self.str()?;
        let source_name = self.str()?;
        let functions = self.list(1, Self::function)?;
        let module = if bool::read(self)? {
            Some(Box::new(self.module()?))
        } else {
            None
        };
        Ok(Script {
            kind,
            functions,
            source,
            source_name,
            module,
        })
    }

    fn function(&mut self) -> Result<FunctionCode, DecodeError> {
        Ok(FunctionCode {
            name: self.units()?,
            kind: FunctionKind::read(self)?,
            strict: bool::read(self)?,
            length: u32::read(self)?,
            param_count: u16::read(self)?,
            register_count: u16::read(self)?,
            instructions: self.list(1, Self::instr)?,
            constants: self.list(1, Self::constant)?,
            property_sites: self.list(1, Self::units)?,
            handlers: self.list(15, |r| {
                Ok(Handler {
                    start: u32::read(r)?,
                    end: u32::read(r)?,
                    target: u32::read(r)?,
                    env_depth: u16::read(r)?,
                    reg: u16::read(r)?,
                    is_finally: bool::read(r)?,
                })
            })?,
            switch_tables: self.list(1, |r| {
                Ok(SwitchTable {
                    cases: r.list(8, |r| Ok((i32::read(r)?, u32::read(r)?)))?,
                })
            })?,
            positions: self.list(8, |r| Ok((u32::read(r)?, u32::read(r)?)))?,
            source_start: u32::read(self)?,
            source_end: u32::read(self)?,
        })
    }

    fn constant(&mut self) -> Result<Constant, DecodeError> {
        let at = self.at;
        Ok(match u8::read(self)? {
            0 => Constant::Number(f64::read(self)?),
            1 => Constant::String(self.units()?),
            2 => Constant::BigInt(self.str()?),
            3 => Constant::Function(u32::read(self)?),
            4 => Constant::RegExp {
                pattern: self.units()?,
                flags: self.str()?,
            },
            5 => Constant::Template {
                cooked: self.list(1, |r| {
                    Ok(if bool::read(r)? {
                        Some(r.units()?)
                    } else {
                        None
                    })
                })?,
                raw: self.list(1, Self::units)?,
            },
            tag => {
                self.at = at;
                return Err(self.error(format!("unknown constant kind {tag}")));
            }
        })
    }

    fn module(&mut self) -> Result<ModuleInfo, DecodeError> {
        Ok(ModuleInfo {
            requests: self.list(2, |r| {
                Ok(ModuleRequest {
                    specifier: r.str()?,
                    attributes: r.list(2, |r| Ok((r.str()?, r.str()?)))?,
                })
            })?,
            imports: self.list(4, |r| {
                Ok(ImportEntry {
                    request: u16::read(r)?,
                    import_name: r.str()?,
                    local_name: r.str()?,
                })
            })?,
            namespace_imports: self.list(4, |r| Ok((u16::read(r)?, u16::read(r)?)))?,
            local_exports: self.list(3, |r| Ok((r.str()?, u16::read(r)?)))?,
            indirect_exports: self.list(4, |r| {
                Ok(IndirectExport {
                    export_name: r.str()?,
                    request: u16::read(r)?,
                    import_name: if bool::read(r)? { Some(r.str()?) } else { None },
                })
            })?,
            star_exports: self.list(2, u16::read)?,
            env_size: u16::read(self)?,
            init_function: u32::read(self)?,
            has_top_level_await: bool::read(self)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small module exercising every part of the format.
    fn sample() -> Script {
        let top = FunctionCode {
            name: vec![],
            kind: FunctionKind::Script,
            strict: true,
            length: 0,
            param_count: 0,
            register_count: 4,
            instructions: vec![
                Instr::LoadConst { dst: 1, idx: 0 },
                Instr::Closure { dst: 2, func: 1 },
                Instr::JumpIfFalse { src: 1, offset: 1 },
                Instr::Call {
                    dst: 0,
                    func: 2,
                    args: 2,
                    argc: 1,
                },
                Instr::GetNamed {
                    dst: 3,
                    obj: 0,
                    site: 0,
                },
                Instr::NewRegExp { dst: 3, idx: 2 },
                Instr::GetTemplateObject { dst: 3, idx: 3 },
                Instr::AddImm {
                    dst: 3,
                    lhs: 3,
                    imm: -7,
                },
                Instr::DefineMethod {
                    obj: 0,
                    key: 1,
                    func: 2,
                    kind: MethodKind::ClassGetter,
                },
                Instr::SwitchInt { src: 1, table: 0 },
                Instr::Return { src: 3 },
            ],
            constants: vec![
                Constant::Number(-0.5),
                Constant::Function(1),
                Constant::RegExp {
                    pattern: vec![97],
                    flags: "gu".into(),
                },
                Constant::Template {
                    cooked: vec![None, Some(vec![98])],
                    raw: vec![vec![92], vec![98]],
                },
                Constant::BigInt("-12".into()),
                Constant::String(vec![0xd800, 65]),
            ],
            property_sites: vec![vec![120]],
            handlers: vec![Handler {
                start: 0,
                end: 3,
                target: 9,
                env_depth: 0,
                reg: 2,
                is_finally: true,
            }],
            switch_tables: vec![SwitchTable {
                cases: vec![(-3, 10), (7, 10)],
            }],
            positions: vec![(0, 0), (4, 3)],
            source_start: 0,
            source_end: 5,
        };
        let inner = FunctionCode {
            name: vec![102],
            kind: FunctionKind::Arrow,
            param_count: 1,
            register_count: 2,
            instructions: vec![Instr::ReturnUndefined],
            constants: vec![],
            property_sites: vec![],
            handlers: vec![],
            switch_tables: vec![],
            positions: vec![],
            ..top.clone()
        };
        Script {
            kind: ScriptKind::Module,
            functions: vec![top, inner.clone(), inner],
            source: "héllo".into(),
            source_name: "m.js".into(),
            module: Some(Box::new(ModuleInfo {
                requests: vec![ModuleRequest {
                    specifier: "./a.js".into(),
                    attributes: vec![("type".into(), "json".into())],
                }],
                imports: vec![ImportEntry {
                    request: 0,
                    import_name: "x".into(),
                    local_name: "y".into(),
                }],
                namespace_imports: vec![(0, 1)],
                local_exports: vec![("default".into(), 0)],
                indirect_exports: vec![IndirectExport {
                    export_name: "z".into(),
                    request: 0,
                    import_name: None,
                }],
                star_exports: vec![0],
                env_size: 2,
                init_function: 2,
                has_top_level_await: true,
            })),
        }
    }

    #[test]
    fn a_script_round_trips_and_validates() {
        let script = sample();
        let bytes = encode(&script).unwrap();
        assert_eq!(decode(&bytes).unwrap(), script);
        assert_eq!(validate(&script), Ok(()));
    }

    #[test]
    fn every_truncation_is_an_error() {
        let bytes = encode(&sample()).unwrap();
        for len in 0..bytes.len() {
            assert!(
                decode(&bytes[..len]).is_err(),
                "a prefix of {len} bytes decoded"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(
            decode(&longer).unwrap_err().message,
            "trailing bytes after the script"
        );
    }

    #[test]
    fn garbage_and_flipped_bytes_give_a_result_or_an_error() {
        let bytes = encode(&sample()).unwrap();
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2000 {
            let mut flipped = bytes.clone();
            let at = next() as usize % flipped.len();
            flipped[at] ^= (next() as u8) | 1;
            if let Ok(script) = decode(&flipped) {
                let _ = validate(&script);
            }
            let garbage: Vec<u8> = (0..next() % 300).map(|_| next() as u8).collect();
            if let Ok(script) = decode(&garbage) {
                let _ = validate(&script);
            }
        }
    }

    #[test]
    fn huge_counts_are_refused_before_allocating() {
        // kind, then a source length of 2^62
        let bytes = [1u8, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40];
        assert_eq!(
            decode(&bytes).unwrap_err().message,
            "a count of 4611686018427387904 is longer than the input"
        );
    }

    #[test]
    fn a_direct_eval_is_refused_when_read() {
        let mut script = sample();
        script.functions[0].instructions[0] = Instr::CallEval {
            dst: 0,
            func: 0,
            args: 0,
            argc: 0,
        };
        assert_eq!(validate(&script), Ok(()));
        let bytes = encode(&script).unwrap();
        assert_eq!(
            decode(&bytes).unwrap_err().message,
            "direct eval is not supported in precompiled code"
        );
    }

    #[test]
    fn validation_refuses_indices_out_of_range() {
        let cases: Vec<(Instr, &str)> = vec![
            (
                Instr::Mov { dst: 4, src: 0 },
                "register r4 out of range (function 0, instruction 0)",
            ),
            (
                Instr::LoadConst { dst: 0, idx: 9 },
                "constant 9 out of range (function 0, instruction 0)",
            ),
            (
                Instr::LoadConst { dst: 0, idx: 1 },
                "constant 1 is not a value (function 0, instruction 0)",
            ),
            (
                Instr::Closure { dst: 0, func: 0 },
                "constant 0 is not a function of this script (function 0, instruction 0)",
            ),
            (
                Instr::GetNamed {
                    dst: 0,
                    obj: 0,
                    site: 1,
                },
                "property site 1 out of range (function 0, instruction 0)",
            ),
            (
                Instr::Jump { offset: 100 },
                "jump to 101 out of range (function 0, instruction 0)",
            ),
            (
                Instr::JumpIfTrue { src: 0, offset: -1 },
                "jump to 0 goes backward without a safe point (function 0, instruction 0)",
            ),
            (
                Instr::SwitchInt { src: 0, table: 1 },
                "switch table 1 out of range (function 0, instruction 0)",
            ),
            (
                Instr::Call {
                    dst: 0,
                    func: 0,
                    args: 2,
                    argc: 2,
                },
                "register r2+2 out of range (function 0, instruction 0)",
            ),
            (
                Instr::GetImport { dst: 0, index: 1 },
                "import 1 out of range (function 0, instruction 0)",
            ),
            (
                Instr::IteratorNext { dst: 0, iter: 3 },
                "register r3+1 out of range (function 0, instruction 0)",
            ),
            (
                Instr::YieldDelegate { dst: 0, iter: 3 },
                "register r3+1 out of range (function 0, instruction 0)",
            ),
        ];
        for (instr, expected) in cases {
            let mut script = sample();
            script.functions[0].instructions[0] = instr;
            assert_eq!(validate(&script).unwrap_err().to_string(), expected);
        }
        let mut falls_off = sample();
        falls_off.functions[1].instructions = vec![Instr::Mov { dst: 0, src: 1 }];
        assert_eq!(
            validate(&falls_off).unwrap_err().to_string(),
            "control can run past the last instruction (function 1)"
        );
        let mut switch_back = sample();
        switch_back.functions[0].switch_tables[0].cases[1].1 = 9;
        assert_eq!(
            validate(&switch_back).unwrap_err().to_string(),
            "switch table 0 jumps to 9, not forward (function 0, instruction 9)"
        );
        let mut switch_unsorted = sample();
        switch_unsorted.functions[0].switch_tables[0].cases[1].0 = -3;
        assert_eq!(
            validate(&switch_unsorted).unwrap_err().to_string(),
            "switch table 0 is not sorted by value (function 0)"
        );
        let mut handler_back = sample();
        handler_back.functions[0].handlers[0].target = 1;
        assert_eq!(
            validate(&handler_back).unwrap_err().to_string(),
            "handler Handler { start: 0, end: 3, target: 1, env_depth: 0, reg: 2, is_finally: true } out of range (function 0)"
        );
        let mut bad_source = sample();
        bad_source.functions[0].source_end = 2; // inside "é"
        assert_eq!(
            validate(&bad_source).unwrap_err().to_string(),
            "source range out of range (function 0)"
        );
    }
}
