//! `serde` support for [`HostValue`]: hosts exchange `serde_json::Value` (or any type of
//! their own, through `serde_json::to_value`/`from_value`) with the guest.
//!
//! Integral numbers serialize as integers (−0 and fractions as floats). `undefined` and
//! `null` both serialize as unit and deserialize as `Null`. BigInts and Dates serialize
//! as one-entry maps `{"$bigint": "123"}` and `{"$date": 0.0}`; deserializing never
//! produces them (a guest object with such a key must stay an object). Bytes serialize as
//! `{"$bytes": "<base64>"}` and deserialize back to bytes, so binary data survives a JSON
//! round trip: the one-entry map whose value is standard padded base64 is read as bytes
//! (a guest object of exactly that form comes back as bytes). Formats with a native byte
//! type (`serialize_bytes`) deserialize it as bytes too.

use super::HostValue;
use crate::builtins::uint8_base64::{decode_base64_strict, encode_base64};
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The largest integer every serde format keeps exactly as an f64 (2^53 − 1).
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

impl Serialize for HostValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            HostValue::Undefined => serializer.serialize_unit(),
            HostValue::Null => serializer.serialize_none(),
            HostValue::Bool(b) => serializer.serialize_bool(*b),
            &HostValue::Number(n) => {
                if n.fract() == 0.0
                    && n.abs() <= MAX_SAFE_INTEGER
                    && !(n == 0.0 && n.is_sign_negative())
                {
                    serializer.serialize_i64(n as i64)
                } else {
                    serializer.serialize_f64(n)
                }
            }
            HostValue::String(s) => serializer.serialize_str(s),
            HostValue::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            HostValue::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
            HostValue::BigInt(digits) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("$bigint", digits)?;
                map.end()
            }
            HostValue::Date(t) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("$date", t)?;
                map.end()
            }
            HostValue::Bytes(bytes) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("$bytes", &encode_base64(bytes, false, false))?;
                map.end()
            }
        }
    }
}

struct HostValueVisitor;

impl<'de> Visitor<'de> for HostValueVisitor {
    type Value = HostValue;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("plain data (null, a boolean, number, string, bytes, array or map)")
    }

    fn visit_bool<E>(self, b: bool) -> Result<HostValue, E> {
        Ok(HostValue::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<HostValue, E> {
        Ok(HostValue::Number(n as f64))
    }

    fn visit_u64<E>(self, n: u64) -> Result<HostValue, E> {
        Ok(HostValue::Number(n as f64))
    }

    fn visit_f64<E>(self, n: f64) -> Result<HostValue, E> {
        Ok(HostValue::Number(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<HostValue, E> {
        Ok(HostValue::String(s.to_string()))
    }

    fn visit_string<E>(self, s: String) -> Result<HostValue, E> {
        Ok(HostValue::String(s))
    }

    fn visit_bytes<E>(self, b: &[u8]) -> Result<HostValue, E> {
        Ok(HostValue::Bytes(b.to_vec()))
    }

    fn visit_byte_buf<E>(self, b: Vec<u8>) -> Result<HostValue, E> {
        Ok(HostValue::Bytes(b))
    }

    fn visit_unit<E>(self) -> Result<HostValue, E> {
        Ok(HostValue::Null)
    }

    fn visit_none<E>(self) -> Result<HostValue, E> {
        Ok(HostValue::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<HostValue, D::Error> {
        HostValue::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<HostValue, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(HostValue::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HostValue, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = map.next_entry::<String, HostValue>()? {
            entries.push((k, v));
        }
        if let [(key, HostValue::String(base64))] = entries.as_slice()
            && key == "$bytes"
            && let Some(bytes) = decode_base64_strict(base64)
        {
            return Ok(HostValue::Bytes(bytes));
        }
        Ok(HostValue::Object(entries))
    }
}

impl<'de> Deserialize<'de> for HostValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(HostValueVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_round_trip() {
        let j = json!({ "n": 1, "f": 1.5, "s": "x", "a": [true, null], "o": {} });
        let h: HostValue = serde_json::from_value(j.clone()).unwrap();
        // the workspace builds serde_json with `preserve_order`: the document's order
        assert_eq!(
            h,
            HostValue::object([
                ("n", HostValue::Number(1.0)),
                ("f", HostValue::Number(1.5)),
                ("s", HostValue::from("x")),
                ("a", HostValue::Array(vec![true.into(), HostValue::Null])),
                ("o", HostValue::Object(vec![])),
            ])
        );
        assert_eq!(serde_json::to_value(&h).unwrap(), j);
    }

    #[test]
    fn bytes_round_trip_as_base64() {
        let h = HostValue::Array(vec![
            HostValue::Bytes(vec![0, 1, 254, 255]),
            HostValue::Bytes(vec![]),
            HostValue::Bytes(b"kiln".to_vec()),
        ]);
        let j = serde_json::to_value(&h).unwrap();
        assert_eq!(
            j,
            json!([{ "$bytes": "AAH+/w==" }, { "$bytes": "" }, { "$bytes": "a2lsbg==" }])
        );
        assert_eq!(serde_json::from_value::<HostValue>(j).unwrap(), h);
    }

    #[test]
    fn objects_that_only_look_like_bytes_stay_objects() {
        for j in [
            json!({ "$bytes": "not base64!" }),
            json!({ "$bytes": "AAH" }),
            json!({ "$bytes": 12 }),
            json!({ "$bytes": "AA==", "other": 1 }),
        ] {
            let h: HostValue = serde_json::from_value(j.clone()).unwrap();
            assert!(matches!(h, HostValue::Object(_)), "{j} became {h:?}");
        }
    }

    #[test]
    fn special_values_serialize_as_documented() {
        let h = HostValue::Array(vec![
            HostValue::Number(-0.0),
            HostValue::Undefined,
            HostValue::BigInt("12".into()),
        ]);
        assert_eq!(
            serde_json::to_string(&h).unwrap(),
            r#"[-0.0,null,{"$bigint":"12"}]"#
        );
    }
}
