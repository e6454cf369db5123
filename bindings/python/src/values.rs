//! Python objects to [`HostValue`]s and back, in Rust (never through JSON), with the
//! rules of the Node package's `lib/codec.js`: values cross by copy and fail closed,
//! and a refusal names what was refused and where (`$.orders[3].total`).
//!
//! | Python | guest |
//! |---|---|
//! | `None` | `null` (`undefined` and `null` both come back as `None`) |
//! | `bool` | a boolean |
//! | `int` within ±(2^53 − 1) | a Number; any other `int` is a BigInt |
//! | `float` | a Number (NaN, the infinities and −0 kept) |
//! | `str` | a string (one with a lone surrogate is refused) |
//! | `list`, `tuple` | an array (a guest array comes back as a `list`) |
//! | `dict` with `str` keys | a plain object, in insertion order |
//! | `bytes`, `bytearray` | a `Uint8Array` (comes back as `bytes`) |
//! | `datetime` with a time zone | a Date, to the millisecond (comes back in UTC) |
//!
//! A guest Number that is a whole number within ±(2^53 − 1) (and not −0) comes back as
//! an `int`, any other as a `float`; a BigInt comes back as an `int`. Only these exact
//! types cross (a subclass, such as an `IntEnum` or an `OrderedDict`, is refused), so no
//! Python code of the value runs while it is read. Mutable containers (`list`, `dict`,
//! `bytearray`) reached twice are refused, as objects reached twice are in Node; the
//! immutable `tuple`, `bytes` and `str` may repeat (Python shares equal ones itself).

use kiln::HostValue;
use num_bigint::BigInt;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    IntoPyDict, PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple,
    PyType,
};
use rustc_hash::FxHashSet;
use std::str::FromStr;

/// The deepest nesting of lists and dicts that crosses (as the engine's boundary).
pub const MAX_DEPTH: usize = 64;

/// The largest magnitude of an integer that is a Number rather than a BigInt.
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// A value that cannot cross: what it is, and the path to it (filled in as the
/// refusal unwinds, innermost first).
#[derive(Debug)]
pub struct Refusal {
    pub what: String,
    parts: Vec<String>,
}

impl Refusal {
    pub fn new(what: impl Into<String>) -> Self {
        Refusal {
            what: what.into(),
            parts: Vec::new(),
        }
    }

    /// Records that the refused value was reached through `part` (`.key`, `[3]`).
    pub fn within(mut self, part: String) -> Self {
        self.parts.push(part);
        self
    }

    /// `$.input.orders[3]`
    pub fn path(&self) -> String {
        let mut path = String::from("$");
        for part in self.parts.iter().rev() {
            path.push_str(part);
        }
        path
    }
}

/// `datetime.datetime`, `datetime.timedelta` and the Unix epoch as an aware datetime.
struct Datetime {
    datetime: Py<PyType>,
    epoch: Py<PyAny>,
    millisecond: Py<PyAny>,
    timedelta: Py<PyAny>,
}

fn datetime(py: Python<'_>) -> PyResult<&Datetime> {
    static CELL: PyOnceLock<Datetime> = PyOnceLock::new();
    CELL.get_or_try_init(py, || {
        let module = py.import("datetime")?;
        let datetime = module.getattr("datetime")?.cast_into::<PyType>()?;
        let timedelta = module.getattr("timedelta")?;
        let utc = module.getattr("timezone")?.getattr("utc")?;
        let epoch = datetime.call((1970, 1, 1, 0, 0, 0, 0, utc), None)?;
        let millisecond = timedelta.call((), Some(&[("milliseconds", 1)].into_py_dict(py)?))?;
        Ok(Datetime {
            datetime: datetime.unbind(),
            epoch: epoch.unbind(),
            millisecond: millisecond.unbind(),
            timedelta: timedelta.unbind(),
        })
    })
}

/// Reads a Python value as a [`HostValue`].
pub fn to_host(value: &Bound<'_, PyAny>) -> Result<HostValue, Refusal> {
    Reader::default().value(value, 0)
}

#[derive(Default)]
struct Reader {
    /// the addresses of the mutable containers on the way (and already read)
    seen: FxHashSet<usize>,
}

impl Reader {
    fn value(&mut self, v: &Bound<'_, PyAny>, depth: usize) -> Result<HostValue, Refusal> {
        let py = v.py();
        if v.is_none() {
            return Ok(HostValue::Null);
        }
        if let Ok(b) = v.cast_exact::<PyBool>() {
            return Ok(HostValue::Bool(b.is_true()));
        }
        if v.is_exact_instance_of::<PyInt>() {
            if let Ok(i) = v.extract::<i64>()
                && (-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i)
            {
                return Ok(HostValue::Number(i as f64));
            }
            let big: BigInt = v
                .extract()
                .map_err(|_| Refusal::new("an int that cannot be read"))?;
            return Ok(HostValue::BigInt(big.to_string()));
        }
        if let Ok(f) = v.cast_exact::<PyFloat>() {
            return Ok(HostValue::Number(f.value()));
        }
        if let Ok(s) = v.cast_exact::<PyString>() {
            return string(s).map(HostValue::String);
        }
        // Containers are read in place, without a copy of their items. Nothing read here
        // runs Python code but a datetime's tzinfo, which could change a container under
        // the reader: a list that shrinks or a dict that changes size is refused (before
        // the dict's iterator would notice), and no more items are read than there were.
        if let Ok(list) = v.cast_exact::<PyList>() {
            self.enter(v, depth)?;
            let len = list.len();
            let mut array = Vec::with_capacity(len);
            for i in 0..len {
                let Ok(item) = list.get_item(i) else {
                    return Err(Refusal::new("a list that changed while it was read"));
                };
                let item = self.value(&item, depth + 1);
                array.push(item.map_err(|r| r.within(format!("[{i}]")))?);
            }
            return Ok(HostValue::Array(array));
        }
        if let Ok(tuple) = v.cast_exact::<PyTuple>() {
            if depth >= MAX_DEPTH {
                return Err(Refusal::new("nesting deeper than the limit"));
            }
            let mut array = Vec::with_capacity(tuple.len());
            for (i, item) in tuple.iter().enumerate() {
                let item = self.value(&item, depth + 1);
                array.push(item.map_err(|r| r.within(format!("[{i}]")))?);
            }
            return Ok(HostValue::Array(array));
        }
        if let Ok(dict) = v.cast_exact::<PyDict>() {
            self.enter(v, depth)?;
            let len = dict.len();
            let mut entries = Vec::with_capacity(len);
            let mut pairs = dict.iter();
            for _ in 0..len {
                if dict.len() != len {
                    return Err(Refusal::new("a dict that changed while it was read"));
                }
                let Some((key, item)) = pairs.next() else {
                    break;
                };
                let Ok(key) = key.cast_exact::<PyString>() else {
                    return Err(Refusal::new("a dict key that is not a str"));
                };
                let key = string(key)?;
                let item = self
                    .value(&item, depth + 1)
                    .map_err(|r| r.within(format!(".{key}")))?;
                entries.push((key, item));
            }
            return Ok(HostValue::Object(entries));
        }
        if let Ok(bytes) = v.cast_exact::<PyBytes>() {
            return Ok(HostValue::Bytes(bytes.as_bytes().to_vec()));
        }
        if let Ok(bytes) = v.cast_exact::<PyByteArray>() {
            self.enter(v, depth)?;
            return Ok(HostValue::Bytes(bytes.to_vec()));
        }
        let dt = datetime(py).map_err(|_| Refusal::new("a datetime that cannot be read"))?;
        if v.get_type().is(dt.datetime.bind(py)) {
            return date(v, dt);
        }
        if v.is_callable() {
            return Err(Refusal::new("a function"));
        }
        Err(Refusal::new(
            "an object that is not a plain object or array",
        ))
    }

    fn enter(&mut self, v: &Bound<'_, PyAny>, depth: usize) -> Result<(), Refusal> {
        if depth >= MAX_DEPTH {
            return Err(Refusal::new("nesting deeper than the limit"));
        }
        if !self.seen.insert(v.as_ptr() as usize) {
            return Err(Refusal::new("an object reached twice (cycle or shared)"));
        }
        Ok(())
    }
}

fn string(s: &Bound<'_, PyString>) -> Result<String, Refusal> {
    s.to_cow()
        .map(|s| s.into_owned())
        .map_err(|_| Refusal::new("a string with a lone surrogate"))
}

/// An aware datetime as milliseconds since the epoch (floored, as `Date` keeps no
/// microseconds).
fn date(v: &Bound<'_, PyAny>, dt: &Datetime) -> Result<HostValue, Refusal> {
    let py = v.py();
    let unreadable = |_| Refusal::new("a datetime that cannot be read");
    let offset = v.call_method0("utcoffset").map_err(unreadable)?;
    if offset.is_none() {
        return Err(Refusal::new("a datetime without a time zone"));
    }
    let since = v.sub(dt.epoch.bind(py)).map_err(unreadable)?;
    // timedelta // timedelta is an exact int
    let ms: i64 = since
        .floor_div(dt.millisecond.bind(py))
        .and_then(|n| n.extract())
        .map_err(unreadable)?;
    Ok(HostValue::Date(ms as f64))
}

/// A guest value as a Python object; `Err` only for a Date that Python's `datetime`
/// cannot hold (invalid, or outside the years 1 to 9999).
pub fn to_python(py: Python<'_>, value: &HostValue) -> PyResult<Result<Py<PyAny>, Refusal>> {
    Ok(match value {
        HostValue::Undefined | HostValue::Null => Ok(py.None()),
        HostValue::Bool(b) => Ok(PyBool::new(py, *b).to_owned().into_any().unbind()),
        HostValue::Number(n) => Ok(number(py, *n)?),
        HostValue::String(s) => Ok(PyString::new(py, s).into_any().unbind()),
        HostValue::Array(items) => {
            let list = PyList::empty(py);
            for (i, item) in items.iter().enumerate() {
                match to_python(py, item)? {
                    Ok(v) => list.append(v)?,
                    Err(r) => return Ok(Err(r.within(format!("[{i}]")))),
                }
            }
            Ok(list.into_any().unbind())
        }
        HostValue::Object(entries) => {
            let dict = PyDict::new(py);
            for (key, item) in entries {
                match to_python(py, item)? {
                    Ok(v) => dict.set_item(key, v)?,
                    Err(r) => return Ok(Err(r.within(format!(".{key}")))),
                }
            }
            Ok(dict.into_any().unbind())
        }
        HostValue::BigInt(digits) => {
            let big = BigInt::from_str(digits)
                .map_err(|_| PyValueError::new_err(format!("a BigInt of {digits:?}")))?;
            Ok(big.into_pyobject(py)?.into_any().unbind())
        }
        HostValue::Date(ms) => {
            if ms.is_nan() {
                return Ok(Err(Refusal::new("an invalid Date")));
            }
            let dt = datetime(py)?;
            let since = dt
                .timedelta
                .bind(py)
                .call((), Some(&[("milliseconds", *ms)].into_py_dict(py)?));
            match since.and_then(|d| dt.epoch.bind(py).add(d)) {
                Ok(when) => Ok(when.unbind()),
                Err(_) => Err(Refusal::new("a Date outside the years 1 to 9999")),
            }
        }
        HostValue::Bytes(bytes) => Ok(PyBytes::new(py, bytes).into_any().unbind()),
    })
}

/// A whole Number within ±(2^53 − 1) is an `int`, as JSON readers make it; any other
/// (−0, fractions, NaN, the infinities, larger magnitudes) is a `float`.
fn number(py: Python<'_>, n: f64) -> PyResult<Py<PyAny>> {
    let whole = n.fract() == 0.0 && n.abs() <= MAX_SAFE_INTEGER as f64;
    if whole && !(n == 0.0 && n.is_sign_negative()) {
        Ok((n as i64).into_pyobject(py)?.into_any().unbind())
    } else {
        Ok(PyFloat::new(py, n).into_any().unbind())
    }
}
