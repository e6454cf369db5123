//! Host data into the guest and back: any `HostValue` the host can build either
//! converts or is refused with a `BoundaryError`, never a panic, and plain data with
//! distinct non-index keys comes back unchanged.

#![no_main]

use arbitrary::Arbitrary;
use kiln::{HostValue, Runtime};
use libfuzzer_sys::fuzz_target;

/// The shape of a host value, as the fuzzer generates it.
#[derive(Arbitrary, Debug)]
enum Data {
    Undefined,
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Data>),
    Object(Vec<(String, Data)>),
    BigInt(String),
    Date(f64),
    Bytes(Vec<u8>),
}

fn build(d: &Data) -> HostValue {
    match d {
        Data::Undefined => HostValue::Undefined,
        Data::Null => HostValue::Null,
        Data::Bool(b) => HostValue::Bool(*b),
        Data::Number(n) => HostValue::Number(*n),
        Data::String(s) => HostValue::String(s.clone()),
        Data::Array(items) => HostValue::Array(items.iter().map(build).collect()),
        Data::Object(entries) => {
            HostValue::Object(entries.iter().map(|(k, v)| (k.clone(), build(v))).collect())
        }
        Data::BigInt(s) => HostValue::BigInt(s.clone()),
        Data::Date(t) => HostValue::Date(*t),
        Data::Bytes(b) => HostValue::Bytes(b.clone()),
    }
}

/// Whether a value survives a round trip exactly: no BigInt or Date, no NaN (NaN is not
/// equal to itself), objects with distinct keys that are not array indices (those are
/// reordered, and duplicates collapse).
fn round_trips(v: &HostValue) -> bool {
    match v {
        HostValue::Number(n) => !n.is_nan(),
        HostValue::Array(items) => items.iter().all(round_trips),
        HostValue::Object(entries) => {
            let mut keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str()).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.len() == entries.len()
                && entries.iter().all(|(k, v)| {
                    k.parse::<u32>().is_err() && round_trips(v)
                })
        }
        HostValue::BigInt(_) | HostValue::Date(_) => false,
        _ => true,
    }
}

fuzz_target!(|data: Data| {
    let value = build(&data);
    let mut rt = Runtime::new();
    let vm = rt.vm();
    let Ok(guest) = vm.to_guest(&value) else {
        return;
    };
    let options = kiln::host::BoundaryOptions {
        bigint: true,
        date: true,
        ..Default::default()
    };
    let back = vm.to_host(guest, &options);
    if round_trips(&value) {
        assert_eq!(back.as_ref(), Ok(&value));
    }
});
