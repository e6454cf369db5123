//! `Temporal.PlainTime` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-plaintime-objects)).

use super::options::{
    self, UnitGroup, options_object, overflow, partial_temporal_object, read_time_fields,
    required_string, round_to_options, to_duration, to_integer_with_truncation,
};
use super::{
    Difference, OrThrow, TypeSpec, create, difference_methods, this_value, time_getters, value_of,
};
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use temporal_rs::options::DifferenceSettings;
use temporal_rs::{Duration, TemporalResult};
use temporal_rs::{PlainDateTime, PlainTime, ZonedDateTime};

pub(super) const SPEC: TypeSpec = TypeSpec {
    name: "PlainTime",
    tag: "Temporal.PlainTime",
    constructor,
    length: 0,
    statics: &[("from", from, 1), ("compare", compare, 2)],
    getters: &[&time_getters::<PlainTime>()],
    methods: &[
        &difference_methods::<PlainTime>(),
        &[
            ("add", add, 1),
            ("subtract", subtract, 1),
            ("with", with, 1),
            ("round", round, 1),
            ("equals", equals, 1),
            ("toString", to_string, 0),
            ("toLocaleString", to_json, 0),
            ("toJSON", to_json, 0),
        ],
    ],
};

/// The wall-clock fields of a constructor (hour, minute, ... nanosecond): undefined
/// is 0, anything else ToIntegerWithTruncation, and each must fit its field
/// (IsValidTime, finished by temporal_rs).
pub(super) fn time_arguments(vm: &mut Vm, args: Args, first: usize) -> JsResult<[u16; 6]> {
    let mut fields = [0u16; 6];
    for (i, slot) in fields.iter_mut().enumerate() {
        let v = vm.arg(args, first + i);
        if v.is_undefined() {
            continue;
        }
        let n = to_integer_with_truncation(vm, v)?;
        if !(0.0..=999.0).contains(&n) {
            return Err(vm.range_error(format!("{n} is outside the range of a time field")));
        }
        *slot = n as u16;
    }
    Ok(fields)
}

/// [Temporal.PlainTime](https://tc39.es/proposal-temporal/#sec-temporal.plaintime)
fn constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Temporal.PlainTime must be called with new"));
    }
    let [h, m, s, ms, us, ns] = time_arguments(vm, args, 0)?;
    // 8. If IsValidTime(...) is false, throw a RangeError exception.
    let time = PlainTime::try_new(h as u8, m as u8, s as u8, ms, us, ns).or_throw(vm)?;
    create(vm, time, args.new_target)
}

/// [ToTemporalTime](https://tc39.es/proposal-temporal/#sec-temporal-totemporaltime)
pub(super) fn to_plain_time(vm: &mut Vm, item: Value, options: Value) -> JsResult<PlainTime> {
    if let Some(obj) = item.as_object() {
        // 1.a-c. Temporal objects with a time: the options are still read.
        let time = if let Some(t) = value_of::<PlainTime>(vm, item) {
            Some(t)
        } else if let Some(d) = value_of::<PlainDateTime>(vm, item) {
            Some(d.to_plain_time())
        } else {
            value_of::<ZonedDateTime>(vm, item).map(|z| z.to_plain_time())
        };
        if let Some(time) = time {
            let options = options_object(vm, options)?;
            overflow(vm, options)?;
            return Ok(time);
        }
        // 1.d-g. A property bag, then the options.
        let fields = read_time_fields(vm, obj)?;
        let options = options_object(vm, options)?;
        let overflow = overflow(vm, options)?;
        let partial = fields.partial_time(vm, overflow)?;
        return PlainTime::from_partial(partial, Some(overflow)).or_throw(vm);
    }
    // 2. A string, parsed before the options are read.
    let s = required_string(vm, item, "a time")?;
    let time = PlainTime::from_utf8(s.as_bytes()).or_throw(vm)?;
    let options = options_object(vm, options)?;
    overflow(vm, options)?;
    Ok(time)
}

/// [ToTimeRecordOrMidnight](https://tc39.es/proposal-temporal/#sec-temporal-totimerecordormidnight):
/// None (midnight, or the start of the day) for undefined.
pub(super) fn time_or_midnight(vm: &mut Vm, item: Value) -> JsResult<Option<PlainTime>> {
    if item.is_undefined() {
        return Ok(None);
    }
    to_plain_time(vm, item, Value::UNDEFINED).map(Some)
}

/// [Temporal.PlainTime.from](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.from)
fn from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let time = to_plain_time(vm, vm.arg(args, 0), vm.arg(args, 1))?;
    create(vm, time, Value::UNDEFINED)
}

/// [Temporal.PlainTime.compare](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.compare)
fn compare(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let one = to_plain_time(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    let two = to_plain_time(vm, vm.arg(args, 1), Value::UNDEFINED)?;
    Ok(Value::int(one.cmp(&two) as i32))
}

fn this_time(vm: &mut Vm, this: Value, method: &str) -> JsResult<PlainTime> {
    this_value::<PlainTime>(vm, this, method)
}

/// [Temporal.PlainTime.prototype.add](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.prototype.add)
fn add(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_time(vm, this, "add")?;
    let duration = to_duration(vm, vm.arg(args, 0))?;
    let result = t.add(&duration).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainTime.prototype.subtract](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.prototype.subtract)
fn subtract(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_time(vm, this, "subtract")?;
    let duration = to_duration(vm, vm.arg(args, 0))?;
    let result = t.subtract(&duration).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainTime.prototype.with](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_time(vm, this, "with")?;
    // 3. If ? IsPartialTemporalObject(temporalTimeLike) is false, throw a TypeError exception.
    let bag = partial_temporal_object(vm, vm.arg(args, 0))?;
    // 4. Let partialTime be ? ToTemporalTimeRecord(temporalTimeLike, partial).
    let fields = read_time_fields(vm, bag)?;
    let options = options_object(vm, vm.arg(args, 1))?;
    let overflow = overflow(vm, options)?;
    let partial = fields.partial_time(vm, overflow)?;
    let result = t.with(partial, Some(overflow)).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainTime.prototype.round](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.prototype.round)
fn round(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_time(vm, this, "round")?;
    let options = round_to_options(vm, vm.arg(args, 0), false)?;
    let result = t.round(options).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainTime.prototype.equals](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.prototype.equals)
fn equals(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_time(vm, this, "equals")?;
    let other = to_plain_time(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    Ok(Value::bool(t == other))
}

/// [Temporal.PlainTime.prototype.toString](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let t = this_time(vm, this, "toString")?;
    let options = options_object(vm, vm.arg(args, 0))?;
    let rounding = options::to_string_rounding(vm, options)?;
    options::validate_to_string_unit(vm, &rounding)?;
    let s = t.to_ixdtf_string(rounding).or_throw(vm)?;
    Ok(vm.string_value(&s))
}

/// [Temporal.PlainTime.prototype.toJSON](https://tc39.es/proposal-temporal/#sec-temporal.plaintime.prototype.tojson);
/// also `toLocaleString`, which without Intl returns the same string.
fn to_json(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let t = this_time(vm, this, "toJSON")?;
    let s = t.to_ixdtf_string(Default::default()).or_throw(vm)?;
    Ok(vm.string_value(&s))
}

impl Difference for PlainTime {
    const UNITS: UnitGroup = UnitGroup::Time;
    fn convert(vm: &mut Vm, other: Value) -> JsResult<Self> {
        to_plain_time(vm, other, Value::UNDEFINED)
    }
    fn until(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        PlainTime::until(self, other, settings)
    }
    fn since(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        PlainTime::since(self, other, settings)
    }
}
