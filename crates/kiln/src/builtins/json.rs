//! The `JSON` object ([spec](https://tc39.es/ecma262/#sec-json-object)).
//!
//! `JSON.parse` runs an iterative parser (an explicit stack of open
//! containers), so deeply nested text cannot exhaust the Rust stack; it still
//! caps nesting at [`MAX_PARSE_DEPTH`]. The reviver walk and `JSON.stringify`
//! recurse once per nesting level and stop at [`MAX_RECURSION_DEPTH`] with a
//! RangeError.
//!
//! With a reviver, the parser also builds a [`ParseRecord`] tree (the spec's JSON
//! Parse Records) so the reviver's `context` argument can carry the source text of
//! each primitive value it is given unmodified. `JSON.rawJSON` objects are the
//! `RawJson` object kind; `JSON.stringify` writes their text as is.

use super::{define_global, define_to_string_tag, new_plain_object};
use crate::JsResult;
use crate::heap::ObjectId;
use crate::heap::string::{JsStr, Units};
use crate::interpreter::convert::number_to_string;
use crate::interpreter::{Args, Vm};
use crate::object::shape::{MAX_SHAPED_PROPERTIES, ShapeId};
use crate::object::{Attrs, Elements, ObjectKind, Property, PropertyKey};
use crate::value::{Kind, Value};

/// The deepest nesting of arrays and objects `JSON.parse` accepts.
pub const MAX_PARSE_DEPTH: usize = 10_000;
/// The deepest nesting the recursive reviver walk and `JSON.stringify` follow.
pub const MAX_RECURSION_DEPTH: usize = 4_000;

pub fn init(vm: &mut Vm) {
    let json = new_plain_object(vm);
    vm.define_native(json, "isRawJSON", is_raw_json, 1);
    vm.define_native(json, "parse", parse, 2);
    vm.define_native(json, "rawJSON", raw_json, 1);
    vm.define_native(json, "stringify", stringify, 3);
    define_to_string_tag(vm, json, "JSON");
    define_global(vm, "JSON", Value::object(json));
}

// ---- JSON.parse ----

/// 10^0 to 10^15, each exact in a double.
const POWERS_OF_TEN: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// An array or object being parsed. Their members so far wait on one stack of values
/// shared by all open containers (each container's are on top of its parent's), so
/// each array's elements and each object's slots are allocated once, at their size,
/// when the container closes.
enum Open {
    /// an array: its elements are `values[start..]`
    Array { start: usize },
    /// an ordinary object still to be made: `shape` holds its keys so far, whose values
    /// are `values[start..]` in slot order; `next` is where the value of `key` goes
    Shaped {
        shape: ShapeId,
        start: usize,
        key: PropertyKey,
        next: Member,
    },
    /// an object already made (it has an index key, or too many keys for a shape):
    /// its members are put one by one; the value of the key comes next
    Made(ObjectId, PropertyKey),
}

/// The elements of the array whose first element is `values[start]`, taken off the
/// value stack into a vector of their size (one copy).
fn take_members(values: &mut Vec<Value>, start: usize) -> Vec<Value> {
    let members = values[start..].to_vec();
    values.truncate(start);
    members
}

/// A new plain object of `shape` whose slots are `values[start..]`, taken off the value
/// stack.
fn take_object(vm: &mut Vm, shape: ShapeId, values: &mut Vec<Value>, start: usize) -> ObjectId {
    let proto = vm.intrinsics.object_prototype;
    let obj = vm
        .heap
        .new_object_with_slots(shape, proto, &values[start..]);
    values.truncate(start);
    obj
}

/// Where the value of an object's next key goes.
#[derive(Clone, Copy)]
enum Member {
    /// a key new to the object: the value takes the next slot, and the shape becomes this
    Adds(ShapeId),
    /// a repeated key: the value replaces the one in this slot (CreateDataProperty keeps
    /// the first position of a key and the last value)
    Replaces(u32),
}

/// A code unit of the text being parsed: the parser reads a one-byte string as bytes and
/// a two-byte one as UTF-16, never a widened copy.
trait Unit: Copy {
    fn unit(self) -> u16;
    fn view(units: &[Self]) -> Units<'_>;
}

impl Unit for u8 {
    #[inline]
    fn unit(self) -> u16 {
        self as u16
    }
    fn view(units: &[u8]) -> Units<'_> {
        Units::Latin1(units)
    }
}

impl Unit for u16 {
    #[inline]
    fn unit(self) -> u16 {
        self
    }
    fn view(units: &[u16]) -> Units<'_> {
        Units::Utf16(units)
    }
}

/// A copy of the text being parsed, in its own width (the parser allocates on the heap
/// as it reads, so it cannot borrow the string there).
enum Text {
    Latin1(Vec<u8>),
    Utf16(Vec<u16>),
}

impl Text {
    /// A copy of the string `id`, reserved against the heap limit before it is made.
    fn of(vm: &mut Vm, id: crate::heap::StringId) -> JsResult<Text> {
        let bytes = match vm.heap.units(id) {
            Units::Latin1(b) => b.len(),
            Units::Utf16(u) => u.len() * 2,
        };
        vm.reserve_bytes(bytes)?;
        let text = match vm.heap.units(id) {
            Units::Latin1(b) => Text::Latin1(b.to_vec()),
            Units::Utf16(u) => Text::Utf16(u.to_vec()),
        };
        vm.heap.note_work(text.units().len());
        Ok(text)
    }

    fn units(&self) -> Units<'_> {
        match self {
            Text::Latin1(b) => Units::Latin1(b),
            Text::Utf16(u) => Units::Utf16(u),
        }
    }
}

/// A string literal: where it lies in the text when it has no escapes, else its decoded
/// code units.
enum Literal {
    Span(std::ops::Range<usize>),
    Decoded(Vec<u16>),
}

struct Parser<'a, T> {
    src: &'a [T],
    /// the string `src` copies: string values without escapes are its substrings
    text: crate::heap::StringId,
    pos: usize,
    /// the parse records of the open containers' finished members, when tracked
    records: Option<Vec<Vec<ParseRecord>>>,
}

/// A [JSON Parse Record](https://tc39.es/proposal-json-parse-with-source/#sec-json-parse-record):
/// a parsed value with the source text of a primitive, or the records of a container's
/// members.
struct ParseRecord {
    /// the key this value was parsed under (an index for array elements)
    key: PropertyKey,
    value: Value,
    /// the source text of a primitive (code unit range)
    source: std::ops::Range<usize>,
    /// an array's elements or an object's entries (the last of duplicate keys)
    members: Vec<ParseRecord>,
}

/// A parse failure: message and position, turned into a SyntaxError by the caller; or a
/// budget ended the run while parsing (the VM's termination is set; the message is empty).
struct ParseError(String);

/// The caller's error for a failed parse: the SyntaxError, or the termination.
fn parse_failure(vm: &mut Vm, ParseError(msg): ParseError) -> crate::Thrown {
    if vm.termination.is_some() {
        return crate::Thrown;
    }
    vm.syntax_error(msg)
}

/// Parse the whole of `text` (the string `id`), with the parse records a reviver needs
/// when `revive`.
fn parse_text(
    vm: &mut Vm,
    text: &Text,
    id: crate::heap::StringId,
    revive: bool,
) -> Result<(Value, Option<ParseRecord>), ParseError> {
    fn run<T: Unit>(
        vm: &mut Vm,
        src: &[T],
        text: crate::heap::StringId,
        revive: bool,
    ) -> Result<(Value, Option<ParseRecord>), ParseError> {
        let mut parser = Parser {
            src,
            text,
            pos: 0,
            // the root's record lands in the outermost list
            records: revive.then(|| vec![Vec::new()]),
        };
        let value = parser.parse_text(vm)?;
        Ok((value, parser.close_records().pop()))
    }
    match text {
        Text::Latin1(b) => run(vm, b, id, revive),
        Text::Utf16(u) => run(vm, u, id, revive),
    }
}

impl<T: Unit> Parser<'_, T> {
    #[inline]
    fn peek(&self) -> Option<u16> {
        self.src.get(self.pos).map(|u| u.unit())
    }

    fn skip_whitespace(&mut self) {
        while let Some(c) = self.peek() {
            if matches!(c, 0x20 | 0x09 | 0x0A | 0x0D) {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// "Unexpected token 'x' in JSON at position N (line L column C)" or end of input.
    fn unexpected(&self) -> ParseError {
        let Some(c) = self.peek() else {
            return ParseError("Unexpected end of JSON input".into());
        };
        let shown = char::from_u32(c as u32)
            .map(|c| c.escape_debug().to_string())
            .unwrap_or_else(|| format!("\\u{c:04x}"));
        ParseError(format!(
            "Unexpected token '{shown}' in JSON at {}",
            self.position()
        ))
    }

    fn position(&self) -> String {
        let before = &self.src[..self.pos.min(self.src.len())];
        let line = before.iter().filter(|u| u.unit() == 0x0A).count() + 1;
        let column = before.iter().rev().take_while(|u| u.unit() != 0x0A).count() + 1;
        format!("position {} (line {line} column {column})", self.pos)
    }

    fn expect(&mut self, c: u8) -> Result<(), ParseError> {
        self.skip_whitespace();
        if self.peek() == Some(c as u16) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), ParseError> {
        for b in word.bytes() {
            if self.peek() != Some(b as u16) {
                return Err(self.unexpected());
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// A string literal (the opening quote is at `pos`).
    fn string_literal(&mut self) -> Result<Literal, ParseError> {
        let start = self.pos;
        self.pos += 1;
        // Most strings have no escapes: they are a span of the text.
        while let Some(c) = self.peek() {
            match c {
                0x22 => {
                    self.pos += 1;
                    return Ok(Literal::Span(start + 1..self.pos - 1));
                }
                0x5C => break,
                c if c < 0x20 => break,
                _ => self.pos += 1,
            }
        }
        let mut out: Vec<u16> = self.src[start + 1..self.pos]
            .iter()
            .map(|u| u.unit())
            .collect();
        loop {
            let Some(c) = self.peek() else {
                self.pos = start;
                return Err(ParseError(format!(
                    "Unterminated string in JSON at {}",
                    self.position()
                )));
            };
            match c {
                0x22 => {
                    self.pos += 1;
                    return Ok(Literal::Decoded(out));
                }
                0x5C => {
                    self.pos += 1;
                    let escaped = match self.peek() {
                        Some(0x22) => 0x22,
                        Some(0x5C) => 0x5C,
                        Some(0x2F) => 0x2F,
                        Some(0x62) => 0x08,
                        Some(0x66) => 0x0C,
                        Some(0x6E) => 0x0A,
                        Some(0x72) => 0x0D,
                        Some(0x74) => 0x09,
                        Some(0x75) => {
                            let mut v: u16 = 0;
                            for i in 1..=4 {
                                let digit = self
                                    .src
                                    .get(self.pos + i)
                                    .and_then(|u| char::from_u32(u.unit() as u32))
                                    .and_then(|c| c.to_digit(16));
                                match digit {
                                    Some(d) => v = v * 16 + d as u16,
                                    None => {
                                        self.pos += i;
                                        return Err(ParseError(format!(
                                            "Bad Unicode escape in JSON at {}",
                                            self.position()
                                        )));
                                    }
                                }
                            }
                            self.pos += 4;
                            v
                        }
                        _ => {
                            return Err(ParseError(format!(
                                "Bad escaped character in JSON at {}",
                                self.position()
                            )));
                        }
                    };
                    out.push(escaped);
                    self.pos += 1;
                }
                c if c < 0x20 => {
                    return Err(ParseError(format!(
                        "Bad control character in string literal in JSON at {}",
                        self.position()
                    )));
                }
                c => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// A number literal (at a '-' or digit).
    fn number(&mut self) -> Result<f64, ParseError> {
        let start = self.pos;
        let is_digit = |c: Option<u16>| c.is_some_and(|c| (0x30..=0x39).contains(&c));
        let negative = self.peek() == Some(0x2D);
        if negative {
            self.pos += 1;
        }
        let digits_start = self.pos;
        match self.peek() {
            Some(0x30) => self.pos += 1,
            c if is_digit(c) => {
                while is_digit(self.peek()) {
                    self.pos += 1;
                }
            }
            _ => return Err(self.unexpected()),
        }
        let integer_end = self.pos;
        if self.peek() == Some(0x2E) {
            self.pos += 1;
            if !is_digit(self.peek()) {
                return Err(self.unexpected());
            }
            while is_digit(self.peek()) {
                self.pos += 1;
            }
        }
        let fraction_end = self.pos;
        if matches!(self.peek(), Some(0x65 | 0x45)) {
            self.pos += 1;
            if matches!(self.peek(), Some(0x2B | 0x2D)) {
                self.pos += 1;
            }
            if !is_digit(self.peek()) {
                return Err(self.unexpected());
            }
            while is_digit(self.peek()) {
                self.pos += 1;
            }
        }
        // Up to 15 digits with no exponent: the digits are an integer exact in a double,
        // and so is 10^k for k <= 22, so one division rounds as the decimal text does.
        // the digits after '.', which is at integer_end when there is one
        let fraction_digits = (fraction_end - integer_end).saturating_sub(1);
        if self.pos == fraction_end && integer_end - digits_start + fraction_digits <= 15 {
            let digits = |units: &[T], n: u64| {
                units
                    .iter()
                    .fold(n, |n, u| n * 10 + (u.unit() - 0x30) as u64)
            };
            let mut n = digits(&self.src[digits_start..integer_end], 0);
            if fraction_digits > 0 {
                n = digits(&self.src[integer_end + 1..fraction_end], n);
            }
            let n = n as f64 / POWERS_OF_TEN[fraction_digits];
            return Ok(if negative { -n } else { n });
        }
        // Otherwise the text as ASCII, on the stack when it is short.
        let units = &self.src[start..self.pos];
        let mut buffer = [0u8; 64];
        let long: String;
        let text = if units.len() <= buffer.len() {
            for (b, u) in buffer.iter_mut().zip(units) {
                *b = u.unit() as u8;
            }
            std::str::from_utf8(&buffer[..units.len()]).unwrap_or("")
        } else {
            long = units.iter().map(|u| u.unit() as u8 as char).collect();
            &long
        };
        Ok(text.parse::<f64>().unwrap_or(f64::NAN))
    }

    /// An object key followed by ':', as its literal.
    fn key_literal(&mut self) -> Result<Literal, ParseError> {
        self.skip_whitespace();
        if self.peek() != Some(0x22) {
            return Err(self.unexpected());
        }
        let literal = self.string_literal()?;
        self.expect(b':')?;
        Ok(literal)
    }

    /// The code units of a literal.
    fn literal_units<'l>(&'l self, literal: &'l Literal) -> Units<'l> {
        match literal {
            Literal::Span(r) => T::view(&self.src[r.clone()]),
            Literal::Decoded(units) => Units::Utf16(units),
        }
    }

    /// The property key a literal names (interned, or an array index).
    fn key_of(&self, vm: &mut Vm, literal: &Literal) -> PropertyKey {
        let units = self.literal_units(literal);
        match units.as_array_index() {
            Some(i) => PropertyKey::Index(i),
            None => PropertyKey::String(vm.heap.intern_units(units)),
        }
    }

    /// An object key followed by ':'.
    fn key(&mut self, vm: &mut Vm) -> Result<PropertyKey, ParseError> {
        let literal = self.key_literal()?;
        Ok(self.key_of(vm, &literal))
    }

    /// The next key of an object of `shape` still to be made, and where its value goes;
    /// None when the object must be made now and take its members one by one (the key
    /// is an array index, or the object has as many keys as a shape holds).
    ///
    /// Objects parsed from one kind of record add the same keys in the same order, so
    /// the key is first looked for among the transitions out of `shape` by its text:
    /// a match is the key and the shape, with no hashing and no search.
    fn object_key(
        &self,
        vm: &mut Vm,
        shape: ShapeId,
        literal: &Literal,
    ) -> Option<(PropertyKey, Member)> {
        let units = self.literal_units(literal);
        for &(key, attrs, to) in vm.heap.shapes.transitions(shape) {
            if let PropertyKey::String(s) = key
                && attrs == Attrs::DEFAULT
                && vm.heap.flat_units(s).eq_units(units)
            {
                // a string key is never an array index's text, and a transition adds
                // a key its shape lacks
                return Some((key, Member::Adds(to)));
            }
        }
        let key = self.key_of(vm, literal);
        if let PropertyKey::Index(_) = key {
            return None;
        }
        // every property of a parsed object is a default data property
        if let Some((slot, _)) = vm.heap.shapes.lookup(shape, key) {
            return Some((key, Member::Replaces(slot)));
        }
        if vm.heap.shapes.get(shape).len >= MAX_SHAPED_PROPERTIES {
            return None;
        }
        Some((
            key,
            Member::Adds(vm.heap.shapes.add(shape, key, Attrs::DEFAULT)),
        ))
    }

    /// The string value of a literal.
    fn string_value(&self, vm: &mut Vm, literal: Literal) -> Value {
        let units = match &literal {
            Literal::Span(r) => T::view(&self.src[r.clone()]),
            Literal::Decoded(units) => Units::Utf16(units),
        };
        Value::string(match (units.len(), &literal) {
            (0, _) => vm.atoms.empty,
            (1, _) => vm.heap.single_unit_string(units.at(0)),
            (_, Literal::Span(r)) => vm.heap.substring(self.text, r.start, r.end),
            (_, Literal::Decoded(units)) => vm.heap.alloc_units(units),
        })
    }

    /// The whole text as one value. Runs no JavaScript and reaches no safe point (so
    /// nothing needs rooting: the values waiting in `values` are not traced).
    fn parse_text(&mut self, vm: &mut Vm) -> Result<Value, ParseError> {
        let mut stack: Vec<Open> = Vec::with_capacity(8);
        let mut values: Vec<Value> = Vec::with_capacity(32);
        let object_root = vm.heap.shapes.root(Some(vm.intrinsics.object_prototype));
        'value: loop {
            // One unit per value: no safe point runs while the values are made, so the
            // meter's slow check is what ends a text whose values exceed the heap limit.
            if vm.charge(1).is_err() {
                return Err(ParseError(String::new()));
            }
            self.skip_whitespace();
            let start = self.pos;
            let mut value = match self.peek() {
                Some(0x7B) => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.peek() == Some(0x7D) {
                        self.pos += 1;
                        Value::object(new_plain_object(vm))
                    } else {
                        if stack.len() >= MAX_PARSE_DEPTH {
                            return Err(self.too_deep());
                        }
                        let literal = self.key_literal()?;
                        stack.push(match self.object_key(vm, object_root, &literal) {
                            Some((key, next)) => Open::Shaped {
                                shape: object_root,
                                start: values.len(),
                                key,
                                next,
                            },
                            None => {
                                let key = self.key_of(vm, &literal);
                                Open::Made(new_plain_object(vm), key)
                            }
                        });
                        self.open_records();
                        continue 'value;
                    }
                }
                Some(0x5B) => {
                    self.pos += 1;
                    self.skip_whitespace();
                    if self.peek() == Some(0x5D) {
                        self.pos += 1;
                        Value::object(vm.array_from_values(Vec::new()))
                    } else {
                        if stack.len() >= MAX_PARSE_DEPTH {
                            return Err(self.too_deep());
                        }
                        stack.push(Open::Array {
                            start: values.len(),
                        });
                        self.open_records();
                        continue 'value;
                    }
                }
                Some(0x22) => {
                    let literal = self.string_literal()?;
                    self.string_value(vm, literal)
                }
                Some(0x74) => {
                    self.literal("true")?;
                    Value::TRUE
                }
                Some(0x66) => {
                    self.literal("false")?;
                    Value::FALSE
                }
                Some(0x6E) => {
                    self.literal("null")?;
                    Value::NULL
                }
                Some(c) if c == 0x2D || (0x30..=0x39).contains(&c) => Value::number(self.number()?),
                _ => return Err(self.unexpected()),
            };
            // Attach the finished value to the open containers, closing those that end.
            let mut members = Vec::new();
            loop {
                if self.records.is_some() {
                    let key = match stack.last() {
                        None => PropertyKey::String(vm.atoms.empty),
                        Some(Open::Array { start }) => {
                            PropertyKey::Index((values.len() - start) as u32)
                        }
                        Some(Open::Shaped { key, .. } | Open::Made(_, key)) => *key,
                    };
                    self.record(ParseRecord {
                        key,
                        value,
                        source: start..self.pos,
                        members: std::mem::take(&mut members),
                    });
                }
                match stack.last_mut() {
                    None => {
                        self.skip_whitespace();
                        if self.pos < self.src.len() {
                            return Err(self.unexpected());
                        }
                        return Ok(value);
                    }
                    Some(Open::Array { start }) => {
                        let start = *start;
                        values.push(value);
                        self.skip_whitespace();
                        match self.peek() {
                            Some(0x2C) => {
                                self.pos += 1;
                                continue 'value;
                            }
                            Some(0x5D) => {
                                self.pos += 1;
                                stack.pop();
                                let items = take_members(&mut values, start);
                                value = Value::object(vm.array_from_values(items));
                                members = self.close_records();
                            }
                            _ => return Err(self.unexpected()),
                        }
                    }
                    Some(Open::Shaped {
                        shape, start, next, ..
                    }) => {
                        match *next {
                            Member::Adds(to) => {
                                values.push(value);
                                *shape = to;
                            }
                            Member::Replaces(slot) => values[*start + slot as usize] = value,
                        }
                        let (shape, start) = (*shape, *start);
                        self.skip_whitespace();
                        match self.peek() {
                            Some(0x2C) => {
                                self.pos += 1;
                                let literal = self.key_literal()?;
                                let top = stack.last_mut().expect("this object is open");
                                *top = match self.object_key(vm, shape, &literal) {
                                    Some((key, next)) => Open::Shaped {
                                        shape,
                                        start,
                                        key,
                                        next,
                                    },
                                    None => {
                                        let obj = take_object(vm, shape, &mut values, start);
                                        Open::Made(obj, self.key_of(vm, &literal))
                                    }
                                };
                                continue 'value;
                            }
                            Some(0x7D) => {
                                self.pos += 1;
                                stack.pop();
                                let obj = take_object(vm, shape, &mut values, start);
                                value = Value::object(obj);
                                members = self.close_records();
                            }
                            _ => return Err(self.unexpected()),
                        }
                    }
                    Some(Open::Made(obj, key)) => {
                        let (obj, k) = (*obj, *key);
                        // A fresh ordinary object: CreateDataProperty is a plain put (a
                        // duplicate key replaces the earlier value), and runs no code.
                        vm.heap.put_own(
                            obj,
                            k,
                            Property {
                                value,
                                attrs: Attrs::DEFAULT,
                            },
                        );
                        self.skip_whitespace();
                        match self.peek() {
                            Some(0x2C) => {
                                self.pos += 1;
                                let next = self.key(vm)?;
                                if let Some(Open::Made(_, key)) = stack.last_mut() {
                                    *key = next;
                                }
                                continue 'value;
                            }
                            Some(0x7D) => {
                                self.pos += 1;
                                stack.pop();
                                value = Value::object(obj);
                                members = self.close_records();
                            }
                            _ => return Err(self.unexpected()),
                        }
                    }
                }
            }
        }
    }

    /// A container opens: its members' records collect apart.
    fn open_records(&mut self) {
        if let Some(records) = &mut self.records {
            records.push(Vec::new());
        }
    }

    /// A container closes: the records of its members.
    fn close_records(&mut self) -> Vec<ParseRecord> {
        self.records
            .as_mut()
            .and_then(|r| r.pop())
            .unwrap_or_default()
    }

    /// A value is finished: its record joins the innermost open container's (the last of
    /// duplicate object keys replaces the earlier).
    fn record(&mut self, record: ParseRecord) {
        let Some(open) = self.records.as_mut().and_then(|r| r.last_mut()) else {
            return;
        };
        match open.iter_mut().find(|r| r.key == record.key) {
            Some(earlier) => *earlier = record,
            None => open.push(record),
        }
    }

    fn too_deep(&self) -> ParseError {
        ParseError(format!(
            "JSON nesting deeper than {MAX_PARSE_DEPTH} levels at {}",
            self.position()
        ))
    }
}

/// [JSON.parse](https://tc39.es/ecma262/#sec-json.parse)
pub(crate) fn parse(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1. Let jsonString be ? ToString(text).
    let text = vm.to_string(vm.arg(args, 0))?;
    let reviver = vm.arg(args, 1);
    let units = Text::of(vm, text)?;
    // parsing is linear in the text: about four code units per unit of fuel
    vm.charge(units.units().len() as u64 / 4)?;
    // 2-6. Parse (ECMA-404) and evaluate.
    let revive = vm.is_callable(reviver);
    let (unfiltered, root_record) = match parse_text(vm, &units, text, revive) {
        Ok(parsed) => parsed,
        Err(e) => return Err(parse_failure(vm, e)),
    };
    // 7. If IsCallable(reviver), walk the result with InternalizeJSONProperty.
    let Some(root_record) = root_record else {
        return Ok(unfiltered);
    };
    // The records' values are compared with what the reviver sees; they stay rooted so
    // no other object can take their place.
    root_record.root_values(vm);
    let root = new_plain_object(vm);
    vm.roots.push(Value::object(root));
    let root_name = PropertyKey::String(vm.atoms.empty);
    vm.create_data_property_or_throw(root, root_name, unfiltered)?;
    let walk = Walk {
        reviver,
        units: units.units(),
    };
    walk.internalize(vm, root, root_name, Some(&root_record), 0)
}

impl ParseRecord {
    fn root_values(&self, vm: &mut Vm) {
        vm.roots.push(self.value);
        for m in &self.members {
            m.root_values(vm);
        }
    }
}

/// A reviver walk over parsed text.
struct Walk<'a> {
    reviver: Value,
    /// the parsed text, for the source of primitive values
    units: Units<'a>,
}

/// The string-keyed enumerable own property keys of `o`
/// ([EnumerableOwnProperties](https://tc39.es/ecma262/#sec-enumerableownproperties) with `key`).
fn enumerable_own_keys(vm: &mut Vm, o: ObjectId) -> JsResult<Vec<PropertyKey>> {
    let mut out = Vec::new();
    for key in vm.own_property_keys(o)? {
        if matches!(key, PropertyKey::Symbol(_)) {
            continue;
        }
        if let Some(d) = vm.get_own_property(o, key)?
            && d.enumerable == Some(true)
        {
            out.push(key);
        }
    }
    Ok(out)
}

impl Walk<'_> {
    /// [InternalizeJSONProperty](https://tc39.es/proposal-json-parse-with-source/#sec-internalizejsonproperty)
    fn internalize(
        &self,
        vm: &mut Vm,
        holder: ObjectId,
        name: PropertyKey,
        record: Option<&ParseRecord>,
        depth: usize,
    ) -> JsResult<Value> {
        if depth > MAX_RECURSION_DEPTH {
            return Err(vm.range_error("JSON.parse: reviver walk nested too deeply"));
        }
        let mark = vm.roots.len();
        // 1. Let val be ? Get(holder, name).
        let val = vm.get(Value::object(holder), name)?;
        vm.roots.push(val);
        // 2-4. The context; a record still describing val gives a primitive its source.
        let context = new_plain_object(vm);
        vm.roots.push(Value::object(context));
        let record = record.filter(|r| vm.same_value(r.value, val));
        if let Some(r) = record
            && !val.is_object()
        {
            let source = vm
                .heap
                .alloc_string(JsStr::from_view(self.units.slice(r.source.clone())));
            let key = vm.key("source");
            vm.create_data_property_or_throw(context, key, Value::string(source))?;
        }
        let members: &[ParseRecord] = record.map_or(&[], |r| &r.members);
        // 5. If val is an Object, revive its elements or properties first.
        if let Some(o) = val.as_object() {
            let revive = |vm: &mut Vm, key: PropertyKey| -> JsResult<()> {
                let member = members.iter().find(|m| m.key == key);
                let new_element = self.internalize(vm, o, key, member, depth + 1)?;
                if new_element.is_undefined() {
                    vm.delete_property(o, key)?;
                } else {
                    vm.create_data_property(o, key, new_element)?;
                }
                Ok(())
            };
            if super::object::is_array(vm, val)? {
                let len = vm.length_of_array_like(val)?;
                let mut i = 0.0;
                while i < len {
                    let key = if i < u32::MAX as f64 {
                        PropertyKey::Index(i as u32)
                    } else {
                        vm.key(&number_to_string(i))
                    };
                    revive(vm, key)?;
                    i += 1.0;
                }
            } else {
                for key in enumerable_own_keys(vm, o)? {
                    revive(vm, key)?;
                }
            }
        }
        // 6. Return ? Call(reviver, holder, « name, val, context »).
        let name_value = vm.key_to_value(name);
        let r = vm.call(
            self.reviver,
            Value::object(holder),
            &[name_value, val, Value::object(context)],
        );
        vm.roots.truncate(mark);
        r
    }
}

/// [JSON.rawJSON](https://tc39.es/proposal-json-parse-with-source/#sec-json.rawjson)
fn raw_json(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1. Let jsonString be ? ToString(text).
    let text = vm.to_string(vm.arg(args, 0))?;
    let units = Text::of(vm, text)?;
    let view = units.units();
    // 2. Not empty, and no whitespace at either end.
    let blank = |i: Option<usize>| {
        matches!(
            i.map(|i| view.at(i)),
            None | Some(0x09 | 0x0A | 0x0D | 0x20)
        )
    };
    if blank((!view.is_empty()).then_some(0)) || blank(view.len().checked_sub(1)) {
        return Err(
            vm.syntax_error("JSON.rawJSON: the text is empty or starts or ends with whitespace")
        );
    }
    // 3. A JSON text whose value is not an object or array.
    if matches!(view.at(0), 0x5B | 0x7B) {
        return Err(vm.syntax_error("JSON.rawJSON: the text is an object or array"));
    }
    vm.charge(view.len() as u64 / 4)?;
    if let Err(e) = parse_text(vm, &units, text, false) {
        return Err(parse_failure(vm, e));
    }
    // 4-8. A frozen null-prototype object with [[IsRawJSON]] and a rawJSON property.
    let obj = vm.heap.new_object(None, ObjectKind::RawJson);
    let key = vm.key("rawJSON");
    vm.create_data_property_or_throw(obj, key, Value::string(text))?;
    super::object::set_integrity_level(vm, obj, true)?;
    Ok(Value::object(obj))
}

/// [JSON.isRawJSON](https://tc39.es/proposal-json-parse-with-source/#sec-json.israwjson)
fn is_raw_json(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let raw = vm
        .arg(args, 0)
        .as_object()
        .is_some_and(|o| matches!(vm.heap.object(o).kind, ObjectKind::RawJson));
    Ok(Value::bool(raw))
}

// ---- JSON.stringify ----

/// The JSON Serialization Record of the spec, plus the output buffer.
struct Serializer {
    replacer_function: Value,
    /// the objects being serialized, outermost first (for cycle detection)
    stack: Vec<ObjectId>,
    indent: Vec<u16>,
    gap: Vec<u16>,
    property_list: Option<Vec<PropertyKey>>,
    out: Vec<u16>,
    /// bytes of `out`'s storage counted against the heap limit so far
    counted: usize,
    /// the key "toJSON", looked up once
    to_json: PropertyKey,
    shape_keys: ShapeKeys,
}

fn push_ascii(out: &mut Vec<u16>, s: &str) {
    out.extend(s.bytes().map(|b| b as u16));
}

/// [QuoteJSONString](https://tc39.es/ecma262/#sec-quotejsonstring), appended to `out`.
fn quote_json_string(out: &mut Vec<u16>, units: Units<'_>) {
    out.push(b'"' as u16);
    match units {
        Units::Latin1(bytes) => {
            // widen into room reserved once; an escape reserves its own
            out.reserve(bytes.len() + 1);
            for &c in bytes {
                if c < 0x20 || c == b'"' || c == b'\\' {
                    escape_unit(out, u16::from(c));
                } else {
                    out.push(u16::from(c));
                }
            }
        }
        Units::Utf16(units) => {
            let len = units.len();
            let mut i = 0;
            while i < len {
                let c = units[i];
                match c {
                    0xD800..=0xDBFF if i + 1 < len && (0xDC00..=0xDFFF).contains(&units[i + 1]) => {
                        out.push(c);
                        out.push(units[i + 1]);
                        i += 1;
                    }
                    c if c < 0x20 || c == 0x22 || c == 0x5C || (0xD800..=0xDFFF).contains(&c) => {
                        escape_unit(out, c)
                    }
                    c => out.push(c),
                }
                i += 1;
            }
        }
    }
    out.push(b'"' as u16);
}

/// The escape of a unit QuoteJSONString does not copy: a control character, a quote, a
/// backslash or a lone surrogate.
fn escape_unit(out: &mut Vec<u16>, c: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    match c {
        0x08 => push_ascii(out, "\\b"),
        0x09 => push_ascii(out, "\\t"),
        0x0A => push_ascii(out, "\\n"),
        0x0C => push_ascii(out, "\\f"),
        0x0D => push_ascii(out, "\\r"),
        0x22 => push_ascii(out, "\\\""),
        0x5C => push_ascii(out, "\\\\"),
        c => {
            push_ascii(out, "\\u");
            for shift in [12, 8, 4, 0] {
                out.push(HEX[((c >> shift) & 0xF) as usize] as u16);
            }
        }
    }
}

/// The decimal digits of `i`, appended to `out`.
fn push_int(out: &mut Vec<u16>, i: i32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut n = i.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if i < 0 {
        out.push(b'-' as u16);
    }
    out.extend(digits[at..].iter().map(|&d| d as u16));
}

/// Whether `o` is an ordinary object or an array: reading its own properties runs no
/// code and they are all in its storage.
fn is_plain(vm: &Vm, o: ObjectId) -> bool {
    matches!(
        vm.heap.object(o).kind,
        ObjectKind::Ordinary | ObjectKind::Array { .. }
    )
}

/// The value of own data property `key` of `o` when `o` is plain; None when it is not,
/// or has no such data property (then `Get` decides).
fn plain_own_value(vm: &Vm, o: ObjectId, key: PropertyKey) -> Option<Value> {
    if !is_plain(vm, o) {
        return None;
    }
    vm.heap
        .own_property(o, key)
        .filter(|p| !p.attrs.is_accessor())
        .map(|p| p.value)
}

/// Whether `o` and every object on its prototype chain are plain and have no property
/// `key` (so `Get(o, key)` is undefined and runs no code).
fn plainly_lacks(vm: &Vm, o: ObjectId, key: PropertyKey) -> bool {
    let mut current = Some(o);
    while let Some(c) = current {
        if !is_plain(vm, c) || vm.heap.own_property(c, key).is_some() {
            return false;
        }
        current = vm.heap.object(c).proto;
    }
    true
}

/// The enumerable string keys of an ordinary object whose properties are all named and
/// kept in its shape, in insertion order (the order EnumerableOwnProperties gives them),
/// each with the slot of its value when it is a data property; None for any other object.
fn shaped_enumerable_keys(vm: &Vm, o: ObjectId, cache: &mut ShapeKeys) -> Option<ShapedKeys> {
    let obj = vm.heap.object(o);
    let Elements::Dense(elements) = &obj.elements else {
        return None;
    };
    if !matches!(obj.kind, ObjectKind::Ordinary) || obj.dict.is_some() || !elements.is_empty() {
        return None;
    }
    if let Some(keys) = cache.get(&obj.shape) {
        return Some(keys.clone());
    }
    let mut keys: Vec<_> = vm
        .heap
        .shapes
        .chain(obj.shape)
        .filter(|(_, key, attrs)| matches!(key, PropertyKey::String(_)) && attrs.enumerable())
        .map(|(slot, key, attrs)| (key, (!attrs.is_accessor()).then_some(slot)))
        .collect();
    keys.reverse();
    let keys: ShapedKeys = keys.into();
    cache.insert(obj.shape, keys.clone());
    Some(keys)
}

/// The keys of [`shaped_enumerable_keys`], shared by the objects of one shape.
type ShapedKeys = std::rc::Rc<[(PropertyKey, Option<u32>)]>;
/// Keys already read from a shape during one `JSON.stringify` (a shape's keys never
/// change, and records of one kind share a shape).
type ShapeKeys = rustc_hash::FxHashMap<crate::object::shape::ShapeId, ShapedKeys>;

impl Serializer {
    /// Refuse output longer than the maximum string length, and count the output
    /// buffer's growth against the heap limit (checked after each value).
    fn check_length(&mut self, vm: &mut Vm) -> JsResult<()> {
        if self.out.len() > crate::MAX_STRING_LENGTH as usize {
            return Err(vm.range_error("Invalid string length"));
        }
        let bytes = self.out.capacity() * size_of::<u16>();
        if bytes > self.counted {
            vm.reserve_bytes(bytes - self.counted)?;
            self.counted = bytes;
        }
        Ok(())
    }

    /// [SerializeJSONProperty](https://tc39.es/ecma262/#sec-serializejsonproperty):
    /// appends the text of `holder[key]` and returns true, or returns false (undefined).
    /// `known` is the value of `Get(holder, key)` when the caller has it at hand.
    fn property(
        &mut self,
        vm: &mut Vm,
        key: PropertyKey,
        holder: ObjectId,
        known: Option<Value>,
    ) -> JsResult<bool> {
        // a few instructions' worth per value, so fuel and compute time see the work
        vm.charge(8)?;
        let mark = vm.roots.len();
        let r = self.property_inner(vm, key, holder, known);
        vm.roots.truncate(mark);
        r
    }

    fn property_inner(
        &mut self,
        vm: &mut Vm,
        key: PropertyKey,
        holder: ObjectId,
        known: Option<Value>,
    ) -> JsResult<bool> {
        // 1. Let value be ? Get(holder, key).
        let mut value = match known.or_else(|| plain_own_value(vm, holder, key)) {
            Some(value) => value,
            None => vm.get(Value::object(holder), key)?,
        };
        vm.roots.push(value);
        // 2. If value is an Object or a BigInt, call its toJSON method if it has one.
        if value.is_object() || value.as_bigint().is_some() {
            let to_json = match value.as_object() {
                Some(o) if plainly_lacks(vm, o, self.to_json) => Value::UNDEFINED,
                _ => vm.get(value, self.to_json)?,
            };
            if vm.is_callable(to_json) {
                let k = vm.key_to_value(key);
                value = vm.call(to_json, value, &[k])?;
                vm.roots.push(value);
            }
        }
        // 3. Call the replacer function.
        if !self.replacer_function.is_undefined() {
            let k = vm.key_to_value(key);
            value = vm.call(self.replacer_function, Value::object(holder), &[k, value])?;
            vm.roots.push(value);
        }
        // 4. Unwrap Number, String, Boolean and BigInt objects; a raw JSON object is its
        // text.
        if let Some(o) = value.as_object() {
            match vm.heap.object(o).kind {
                ObjectKind::RawJson => {
                    let key = vm.key("rawJSON");
                    let text = vm.get(value, key)?;
                    if let Some(t) = text.as_string() {
                        self.out.extend(vm.heap.units(t).iter());
                    }
                    self.check_length(vm)?;
                    return Ok(true);
                }
                ObjectKind::Number(_) => value = Value::number(vm.to_number(value)?),
                ObjectKind::String(_) => value = Value::string(vm.to_string(value)?),
                ObjectKind::Boolean(b) => value = Value::bool(b),
                ObjectKind::BigInt(b) => value = Value::bigint(b),
                _ => {}
            }
            vm.roots.push(value);
        }
        match value.kind() {
            Kind::Null => push_ascii(&mut self.out, "null"),
            Kind::Bool(true) => push_ascii(&mut self.out, "true"),
            Kind::Bool(false) => push_ascii(&mut self.out, "false"),
            Kind::String(s) => quote_json_string(&mut self.out, vm.heap.units(s)),
            Kind::Int(i) => push_int(&mut self.out, i),
            Kind::Double(d) => {
                if d.is_finite() {
                    push_ascii(&mut self.out, &number_to_string(d));
                } else {
                    push_ascii(&mut self.out, "null");
                }
            }
            Kind::BigInt(_) => {
                return Err(vm.type_error("Do not know how to serialize a BigInt"));
            }
            Kind::Object(o) if !vm.is_callable(value) => {
                if super::object::is_array(vm, value)? {
                    self.array(vm, o)?;
                } else {
                    self.object(vm, o)?;
                }
            }
            _ => return Ok(false),
        }
        self.check_length(vm)?;
        Ok(true)
    }

    /// Enter `value`: cycle and depth checks, then indent one level.
    fn enter(&mut self, vm: &mut Vm, value: ObjectId) -> JsResult<Vec<u16>> {
        if self.stack.contains(&value) {
            return Err(vm.type_error("Converting circular structure to JSON"));
        }
        if self.stack.len() >= MAX_RECURSION_DEPTH {
            return Err(vm.range_error("JSON.stringify: value nested too deeply"));
        }
        self.stack.push(value);
        let stepback = self.indent.clone();
        self.indent.extend_from_slice(&self.gap);
        Ok(stepback)
    }

    fn leave(&mut self, stepback: Vec<u16>) {
        self.stack.pop();
        self.indent = stepback;
    }

    /// Before a member: "," between members, then a newline and the indent when there is a gap.
    fn member_separator(&mut self, first: bool) {
        if !first {
            self.out.push(b',' as u16);
        }
        if !self.gap.is_empty() {
            self.out.push(b'\n' as u16);
            self.out.extend_from_slice(&self.indent);
        }
    }

    /// After the last member: a newline and the outer indent when there is a gap.
    fn close(&mut self, any: bool, stepback: &[u16], bracket: u8) {
        if any && !self.gap.is_empty() {
            self.out.push(b'\n' as u16);
            self.out.extend_from_slice(stepback);
        }
        self.out.push(bracket as u16);
    }

    /// [SerializeJSONObject](https://tc39.es/ecma262/#sec-serializejsonobject)
    fn object(&mut self, vm: &mut Vm, value: ObjectId) -> JsResult<()> {
        let stepback = self.enter(vm, value)?;
        let keys: ShapedKeys = match &self.property_list {
            Some(list) => list.iter().map(|&key| (key, None)).collect(),
            None => match shaped_enumerable_keys(vm, value, &mut self.shape_keys) {
                Some(keys) => keys,
                None => enumerable_own_keys(vm, value)?
                    .into_iter()
                    .map(|key| (key, None))
                    .collect(),
            },
        };
        // Fast path: while the object keeps the shape its keys were read from (a toJSON
        // or replacer may change it), a data property's value is in its slot, which is
        // what Get returns for an ordinary object's own data property.
        let shape = vm.heap.object(value).shape;
        self.out.push(b'{' as u16);
        let mut any = false;
        for &(key, slot) in keys.iter() {
            let known = slot.and_then(|slot| {
                let obj = vm.heap.object(value);
                (obj.shape == shape).then(|| obj.slots[slot as usize])
            });
            let rollback = self.out.len();
            self.member_separator(!any);
            let name = vm.key_to_value(key);
            if let Some(s) = name.as_string() {
                quote_json_string(&mut self.out, vm.heap.units(s));
            }
            self.out.push(b':' as u16);
            if !self.gap.is_empty() {
                self.out.push(b' ' as u16);
            }
            if self.property(vm, key, value, known)? {
                any = true;
            } else {
                self.out.truncate(rollback);
            }
        }
        self.close(any, &stepback, b'}');
        self.leave(stepback);
        Ok(())
    }

    /// [SerializeJSONArray](https://tc39.es/ecma262/#sec-serializejsonarray)
    fn array(&mut self, vm: &mut Vm, value: ObjectId) -> JsResult<()> {
        let stepback = self.enter(vm, value)?;
        let len = vm.length_of_array_like(Value::object(value))?;
        self.out.push(b'[' as u16);
        let mut index = 0.0;
        while index < len {
            self.member_separator(index == 0.0);
            let key = if index < u32::MAX as f64 {
                PropertyKey::Index(index as u32)
            } else {
                vm.key(&number_to_string(index))
            };
            if !self.property(vm, key, value, None)? {
                push_ascii(&mut self.out, "null");
            }
            self.check_length(vm)?;
            index += 1.0;
        }
        self.close(len > 0.0, &stepback, b']');
        self.leave(stepback);
        Ok(())
    }
}

/// [JSON.stringify](https://tc39.es/ecma262/#sec-json.stringify)
pub(crate) fn stringify(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let value = vm.arg(args, 0);
    let replacer = vm.arg(args, 1);
    let mut space = vm.arg(args, 2);
    let mut serializer = Serializer {
        replacer_function: Value::UNDEFINED,
        stack: Vec::new(),
        indent: Vec::new(),
        gap: Vec::new(),
        property_list: None,
        // room for a typical response body, so that small results grow it rarely
        out: Vec::with_capacity(256),
        counted: 0,
        to_json: PropertyKey::String(vm.atoms.to_json),
        shape_keys: ShapeKeys::default(),
    };
    // 4. A replacer function, or an array of property names.
    if replacer.is_object() {
        if vm.is_callable(replacer) {
            serializer.replacer_function = replacer;
        } else if super::object::is_array(vm, replacer)? {
            let mut list: Vec<PropertyKey> = Vec::new();
            let len = vm.length_of_array_like(replacer)?;
            let mut k = 0.0;
            while k < len {
                let key = if k < u32::MAX as f64 {
                    PropertyKey::Index(k as u32)
                } else {
                    vm.key(&number_to_string(k))
                };
                let v = vm.get(replacer, key)?;
                let item = match v.kind() {
                    Kind::String(_) | Kind::Int(_) | Kind::Double(_) => Some(v),
                    Kind::Object(o)
                        if matches!(
                            vm.heap.object(o).kind,
                            ObjectKind::String(_) | ObjectKind::Number(_)
                        ) =>
                    {
                        Some(v)
                    }
                    _ => None,
                };
                if let Some(item) = item {
                    let s = vm.to_string(item)?;
                    let key = vm.key_from_string(s);
                    if let PropertyKey::String(atom) = key {
                        // Atoms stay alive through the atom table only while referenced.
                        vm.roots.push(Value::string(atom));
                    }
                    if !list.contains(&key) {
                        list.push(key);
                    }
                }
                k += 1.0;
            }
            serializer.property_list = Some(list);
        }
    }
    // 5. Unwrap a Number or String object `space`.
    if let Some(o) = space.as_object() {
        match vm.heap.object(o).kind {
            ObjectKind::Number(_) => space = Value::number(vm.to_number(space)?),
            ObjectKind::String(_) => space = Value::string(vm.to_string(space)?),
            _ => {}
        }
    }
    // 6-8. The gap: up to 10 spaces, or the first 10 code units of a string.
    if let Some(n) = space.as_number() {
        let n = crate::interpreter::convert::f64_to_integer(n).min(10.0);
        if n >= 1.0 {
            serializer.gap = vec![b' ' as u16; n as usize];
        }
    } else if let Some(s) = space.as_string() {
        serializer.gap = vm.heap.units(s).iter().take(10).collect();
    }
    // 9-11. Serialize the wrapper's "" property.
    let wrapper = new_plain_object(vm);
    vm.roots.push(Value::object(wrapper));
    let empty = PropertyKey::String(vm.atoms.empty);
    vm.create_data_property_or_throw(wrapper, empty, value)?;
    if !serializer.property(vm, empty, wrapper, None)? {
        return Ok(Value::UNDEFINED);
    }
    Ok(Value::string(vm.heap.alloc_units(&serializer.out)))
}
