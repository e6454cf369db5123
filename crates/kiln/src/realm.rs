//! Realms: the intrinsic objects, the global object and the global lexical
//! bindings of each realm; and what every realm shares: the well-known symbols and
//! the atoms the engine uses by name.
//!
//! # Realms in one VM
//!
//! A VM holds one or more realms in its one heap, numbered by [`RealmId`] (realm 0
//! is the one the VM was created with). Every function object knows its realm: a
//! closure through its code (each [`crate::interpreter::CodeBlock`] belongs to the
//! realm it was loaded in), a native function by its `realm` field. The *running*
//! realm's record lives in the VM's own fields (`Vm::intrinsics`,
//! `Vm::global_lexicals`, `Vm::global_lexical_values`, `Vm::shapes`), so the code
//! that reads them is the same as with one realm; the other realms are parked in
//! `Vm::realms`. Calling a function of another realm swaps the records
//! ([`crate::interpreter::Vm::enter_realm`]) and the return swaps them back: a frame
//! records its caller's realm, a native call restores it in Rust.
//!
//! # Invariants
//!
//! 1. Code runs only while its own realm is the running one, so its inline caches
//!    (global property cells included) only ever see its own realm's global object.
//! 2. `Vm::realms[Vm::realm]` is a placeholder while that realm runs; every other
//!    entry is the complete record of a parked realm.

use crate::heap::{Heap, ObjectId, StringId, Symbol, SymbolId};
use crate::object::shape::ShapeId;
use crate::value::Value;

/// The index of a realm in its VM.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RealmId(pub u32);

/// A [Realm Record](https://tc39.es/ecma262/#sec-code-realms) besides what all realms
/// of a VM share (the heap, the symbol registry, the well-known symbols): its
/// intrinsics (`global` among them) and its global lexical bindings.
#[derive(Clone, Debug)]
pub struct Realm {
    pub intrinsics: Intrinsics,
    /// global lexical declarations (script-level let/const/class): name -> index into
    /// `global_lexical_values`; never removed, so indices stay valid
    pub global_lexicals: rustc_hash::FxHashMap<StringId, u32>,
    /// (value, is_const) of each global lexical binding; the hole until initialised
    pub global_lexical_values: Vec<(Value, bool)>,
    pub shapes: FunctionShapes,
}

impl Realm {
    /// The record of a realm that is running (its contents are in the VM's fields) or
    /// not built yet.
    pub fn placeholder() -> Realm {
        Realm {
            intrinsics: Intrinsics::placeholder(),
            global_lexicals: Default::default(),
            global_lexical_values: Vec::new(),
            shapes: FunctionShapes::placeholder(),
        }
    }
}

/// The shapes of a realm's fresh functions and arguments objects (they are rooted at
/// its %Function.prototype% and %Object.prototype%).
#[derive(Clone, Copy, Debug)]
pub struct FunctionShapes {
    /// a fresh closure or native: `length`, `name`
    pub plain: ShapeId,
    /// `length`, `name`, `prototype`
    pub with_prototype: ShapeId,
    /// a non-strict `function`: `length`, `name`, `prototype`, then `arguments` and
    /// `caller`, both undefined (Kiln exposes no caller information; see
    /// [forbidden extensions](https://tc39.es/ecma262/#sec-forbidden-extensions))
    pub sloppy: ShapeId,
    /// the `prototype` object of a fresh `function`: `constructor`
    pub prototype_object: ShapeId,
    /// arguments objects: `length`, `@@iterator`, `callee` (a data property when mapped,
    /// the %ThrowTypeError% accessor `strict_callee` otherwise)
    pub arguments_mapped: ShapeId,
    pub arguments_unmapped: ShapeId,
    /// iterator results: `value`, `done`
    pub iter_result: ShapeId,
    pub strict_callee: Value,
}

impl FunctionShapes {
    pub fn placeholder() -> FunctionShapes {
        FunctionShapes {
            plain: ShapeId::DICTIONARY,
            with_prototype: ShapeId::DICTIONARY,
            sloppy: ShapeId::DICTIONARY,
            prototype_object: ShapeId::DICTIONARY,
            arguments_mapped: ShapeId::DICTIONARY,
            arguments_unmapped: ShapeId::DICTIONARY,
            iter_result: ShapeId::DICTIONARY,
            strict_callee: Value::UNDEFINED,
        }
    }
}

macro_rules! intrinsics {
    ($($name:ident),* $(,)?) => {
        /// The realm's intrinsic objects (%Object.prototype% and friends), created by
        /// `builtins::init` in dependency order.
        #[derive(Clone, Debug)]
        pub struct Intrinsics {
            $(pub $name: ObjectId,)*
        }

        impl Intrinsics {
            /// Every field placeholder-initialised; `builtins::init` fills them.
            pub fn placeholder() -> Self {
                Intrinsics { $($name: ObjectId(0),)* }
            }

            pub fn all(&self) -> Vec<ObjectId> {
                vec![$(self.$name,)*]
            }

            /// The intrinsics listed in the order of [`Intrinsics::all`]; None unless
            /// there are exactly as many.
            pub fn from_all(ids: &[ObjectId]) -> Option<Self> {
                let mut ids = ids.iter().copied();
                let intrinsics = Intrinsics { $($name: ids.next()?,)* };
                ids.next().is_none().then_some(intrinsics)
            }
        }
    };
}

intrinsics!(
    global,
    object_prototype,
    object,
    function_prototype,
    function,
    array_prototype,
    array,
    string_prototype,
    string,
    number_prototype,
    number,
    boolean_prototype,
    boolean,
    symbol_prototype,
    symbol,
    bigint_prototype,
    bigint,
    error_prototype,
    error,
    type_error_prototype,
    type_error,
    range_error_prototype,
    range_error,
    reference_error_prototype,
    reference_error,
    syntax_error_prototype,
    syntax_error,
    eval_error_prototype,
    eval_error,
    uri_error_prototype,
    uri_error,
    aggregate_error_prototype,
    aggregate_error,
    suppressed_error_prototype,
    suppressed_error,
    disposable_stack_prototype,
    disposable_stack,
    async_disposable_stack_prototype,
    async_disposable_stack,
    iterator_prototype,
    async_iterator_prototype,
    array_iterator_prototype,
    map_iterator_prototype,
    set_iterator_prototype,
    string_iterator_prototype,
    regexp_string_iterator_prototype,
    generator_function_prototype,
    generator_prototype,
    async_function_prototype,
    async_generator_function_prototype,
    async_generator_prototype,
    async_from_sync_iterator_prototype,
    promise_prototype,
    promise,
    regexp_prototype,
    regexp,
    date_prototype,
    map_prototype,
    set_prototype,
    weakmap_prototype,
    weakset_prototype,
    weak_ref_prototype,
    finalization_registry_prototype,
    proxy,
    eval,
    function_apply,
    function_call,
    function_has_instance,
    throw_type_error,
    array_prototype_values,
    array_iterator_next,
    array_buffer,
    array_buffer_prototype,
    shared_array_buffer,
    shared_array_buffer_prototype,
    typed_array,
    typed_array_prototype,
    data_view_prototype,
    int8_array,
    int8_array_prototype,
    uint8_array,
    uint8_array_prototype,
    uint8_clamped_array,
    uint8_clamped_array_prototype,
    int16_array,
    int16_array_prototype,
    uint16_array,
    uint16_array_prototype,
    int32_array,
    int32_array_prototype,
    uint32_array,
    uint32_array_prototype,
    float16_array,
    float16_array_prototype,
    float32_array,
    float32_array_prototype,
    float64_array,
    float64_array_prototype,
    bigint64_array,
    bigint64_array_prototype,
    biguint64_array,
    biguint64_array_prototype,
    temporal_duration_prototype,
    temporal_instant_prototype,
    temporal_plain_date_prototype,
    temporal_plain_date_time_prototype,
    temporal_plain_month_day_prototype,
    temporal_plain_time_prototype,
    temporal_plain_year_month_prototype,
    temporal_zoned_date_time_prototype,
);

macro_rules! atoms {
    ($($field:ident = $text:literal),* $(,)?) => {
        /// Strings the engine uses by name, interned once.
        #[derive(Clone, Debug)]
        pub struct Atoms {
            $(pub $field: StringId,)*
        }

        impl Atoms {
            pub fn new(heap: &mut Heap) -> Self {
                Atoms { $($field: heap.intern_static($text),)* }
            }
        }
    };
}

atoms!(
    empty = "",
    undefined = "undefined",
    null = "null",
    true_ = "true",
    false_ = "false",
    object = "object",
    boolean = "boolean",
    number = "number",
    string = "string",
    symbol = "symbol",
    bigint = "bigint",
    function = "function",
    length = "length",
    name = "name",
    message = "message",
    stack = "stack",
    cause = "cause",
    prototype = "prototype",
    constructor = "constructor",
    value = "value",
    done = "done",
    next = "next",
    return_ = "return",
    throw = "throw",
    get = "get",
    set = "set",
    writable = "writable",
    enumerable = "enumerable",
    configurable = "configurable",
    to_string = "toString",
    value_of = "valueOf",
    to_json = "toJSON",
    then = "then",
    callee = "callee",
    caller = "caller",
    arguments = "arguments",
    index = "index",
    input = "input",
    groups = "groups",
    last_index = "lastIndex",
    raw = "raw",
    errors = "errors",
    anonymous = "anonymous",
    bound_prefix = "bound ",
    default = "default",
    lowercase_object = "[object Object]",
    exec = "exec",
    flags = "flags",
    has_indices = "hasIndices",
    global = "global",
    ignore_case = "ignoreCase",
    multiline = "multiline",
    dot_all = "dotAll",
    unicode = "unicode",
    unicode_sets = "unicodeSets",
    sticky = "sticky",
    source = "source",
);

macro_rules! well_known_symbols {
    ($($field:ident = $desc:literal),* $(,)?) => {
        /// The well-known symbols (`Symbol.iterator` and friends).
        #[derive(Clone, Debug)]
        pub struct WellKnownSymbols {
            $(pub $field: SymbolId,)*
        }

        impl WellKnownSymbols {
            pub fn new(heap: &mut Heap) -> Self {
                WellKnownSymbols {
                    $($field: {
                        let description = Some(heap.intern_static($desc));
                        heap.alloc_symbol(Symbol { description, is_private: false, registered: false })
                    },)*
                }
            }

            pub fn all(&self) -> Vec<(&'static str, SymbolId)> {
                vec![$((stringify!($field), self.$field),)*]
            }
        }
    };
}

well_known_symbols!(
    async_dispose = "Symbol.asyncDispose",
    async_iterator = "Symbol.asyncIterator",
    dispose = "Symbol.dispose",
    has_instance = "Symbol.hasInstance",
    is_concat_spreadable = "Symbol.isConcatSpreadable",
    iterator = "Symbol.iterator",
    match_ = "Symbol.match",
    match_all = "Symbol.matchAll",
    replace = "Symbol.replace",
    search = "Symbol.search",
    species = "Symbol.species",
    split = "Symbol.split",
    to_primitive = "Symbol.toPrimitive",
    to_string_tag = "Symbol.toStringTag",
    unscopables = "Symbol.unscopables",
);
