//! BigInt: parsing of literals and strings.

use crate::interpreter::Vm;
use num_bigint::BigInt;

pub fn init(_vm: &mut Vm) {}

/// A BigInt literal's digits as the compiler gives them (decimal, optionally negative).
pub fn parse_bigint_literal(digits: &str) -> Option<BigInt> {
    BigInt::parse_bytes(digits.as_bytes(), 10)
}

/// [StringToBigInt](https://tc39.es/ecma262/#sec-stringtobigint): None if the text is not a valid integer.
pub fn parse_bigint_string(text: &str) -> Option<BigInt> {
    let t = text.trim_matches(crate::interpreter::convert::is_js_whitespace);
    if t.is_empty() {
        return Some(BigInt::from(0));
    }
    let (radix, digits) = match t.get(..2) {
        Some("0x") | Some("0X") => (16, &t[2..]),
        Some("0o") | Some("0O") => (8, &t[2..]),
        Some("0b") | Some("0B") => (2, &t[2..]),
        _ => (10, t),
    };
    if digits.is_empty() {
        return None;
    }
    if radix != 10 && (digits.starts_with('+') || digits.starts_with('-')) {
        return None;
    }
    let unsigned = digits.strip_prefix(['+', '-']).unwrap_or(digits);
    if unsigned.is_empty() || !unsigned.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    BigInt::parse_bytes(digits.as_bytes(), radix)
}
