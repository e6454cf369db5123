//! `Temporal.Instant` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-instant-objects))
//! and `Date.prototype.toTemporalInstant`.

use super::options::{
    self, UnitGroup, get, options_object, round_to_options, time_zone_identifier, to_duration,
};
use super::{Difference, OrThrow, TypeSpec, create, difference_methods, this_value, value_of};
use crate::JsResult;
use crate::builtins::bigint::to_bigint;
use crate::interpreter::convert::Hint;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use num_bigint::BigInt;
use temporal_rs::options::DifferenceSettings;
use temporal_rs::{Duration, TemporalResult};
use temporal_rs::{Instant, ZonedDateTime};

pub(super) const SPEC: TypeSpec = TypeSpec {
    name: "Instant",
    tag: "Temporal.Instant",
    constructor,
    length: 1,
    statics: &[
        ("from", from, 1),
        ("fromEpochMilliseconds", from_epoch_milliseconds, 1),
        ("fromEpochNanoseconds", from_epoch_nanoseconds, 1),
        ("compare", compare, 2),
    ],
    getters: &[&[
        ("epochMilliseconds", epoch_milliseconds),
        ("epochNanoseconds", epoch_nanoseconds),
    ]],
    methods: &[
        &difference_methods::<Instant>(),
        &[
            ("add", add, 1),
            ("subtract", subtract, 1),
            ("round", round, 1),
            ("equals", equals, 1),
            ("toString", to_string, 0),
            ("toLocaleString", to_json, 0),
            ("toJSON", to_json, 0),
            ("toZonedDateTimeISO", to_zoned_date_time_iso, 1),
        ],
    ],
};

/// An Instant from epoch nanoseconds as a BigInt value (IsValidEpochNanoseconds).
fn instant_from_bigint(vm: &mut Vm, v: Value) -> JsResult<Instant> {
    let ns = v.as_bigint().map(|b| i128::try_from(vm.heap.bigint(b)));
    match ns {
        Some(Ok(ns)) => Instant::try_new(ns).or_throw(vm),
        _ => Err(vm.range_error("epoch nanoseconds are outside the representable range")),
    }
}

/// [Temporal.Instant](https://tc39.es/proposal-temporal/#sec-temporal.instant)
fn constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Temporal.Instant must be called with new"));
    }
    // 2. Let epochNanoseconds be ? ToBigInt(epochNanoseconds).
    let ns = to_bigint(vm, vm.arg(args, 0))?;
    // 3. If IsValidEpochNanoseconds(epochNanoseconds) is false, throw a RangeError exception.
    let instant = instant_from_bigint(vm, ns)?;
    create(vm, instant, args.new_target)
}

/// [ToTemporalInstant](https://tc39.es/proposal-temporal/#sec-temporal-totemporalinstant)
pub(super) fn to_instant(vm: &mut Vm, item: Value) -> JsResult<Instant> {
    let mut item = item;
    if item.is_object() {
        // 1.a-b. An Instant or a ZonedDateTime gives its instant.
        if let Some(i) = value_of::<Instant>(vm, item) {
            return Ok(i);
        }
        if let Some(z) = value_of::<ZonedDateTime>(vm, item) {
            return Ok(z.to_instant());
        }
        // 1.c. Set item to ? ToPrimitive(item, string).
        item = vm.to_primitive(item, Hint::String)?;
    }
    // 2. If item is not a String, throw a TypeError exception.
    let s = options::required_string(vm, item, "an instant")?;
    Instant::from_utf8(s.as_bytes()).or_throw(vm)
}

/// [Temporal.Instant.from](https://tc39.es/proposal-temporal/#sec-temporal.instant.from)
fn from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let instant = to_instant(vm, vm.arg(args, 0))?;
    create(vm, instant, Value::UNDEFINED)
}

/// [Temporal.Instant.fromEpochMilliseconds](https://tc39.es/proposal-temporal/#sec-temporal.instant.fromepochmilliseconds)
fn from_epoch_milliseconds(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1. Set epochMilliseconds to ? ToNumber(epochMilliseconds).
    let ms = vm.to_number(vm.arg(args, 0))?;
    // 2. Set epochMilliseconds to ? NumberToBigInt(epochMilliseconds).
    if !ms.is_finite() || ms.trunc() != ms {
        return Err(vm.range_error(format!("{ms} is not an integral number of milliseconds")));
    }
    // 3-4. The nanoseconds must be valid epoch nanoseconds.
    let instant = Instant::try_new(ms as i128 * 1_000_000).or_throw(vm)?;
    create(vm, instant, Value::UNDEFINED)
}

/// [Temporal.Instant.fromEpochNanoseconds](https://tc39.es/proposal-temporal/#sec-temporal.instant.fromepochnanoseconds)
fn from_epoch_nanoseconds(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let ns = to_bigint(vm, vm.arg(args, 0))?;
    let instant = instant_from_bigint(vm, ns)?;
    create(vm, instant, Value::UNDEFINED)
}

/// [Temporal.Instant.compare](https://tc39.es/proposal-temporal/#sec-temporal.instant.compare)
fn compare(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let one = to_instant(vm, vm.arg(args, 0))?;
    let two = to_instant(vm, vm.arg(args, 1))?;
    Ok(Value::int(one.cmp(&two) as i32))
}

fn this_instant(vm: &mut Vm, this: Value, method: &str) -> JsResult<Instant> {
    this_value::<Instant>(vm, this, method)
}

/// [get Temporal.Instant.prototype.epochMilliseconds](https://tc39.es/proposal-temporal/#sec-get-temporal.instant.prototype.epochmilliseconds)
fn epoch_milliseconds(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "epochMilliseconds")?;
    Ok(Value::number(i.epoch_milliseconds() as f64))
}

/// [get Temporal.Instant.prototype.epochNanoseconds](https://tc39.es/proposal-temporal/#sec-get-temporal.instant.prototype.epochnanoseconds)
fn epoch_nanoseconds(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "epochNanoseconds")?;
    Ok(vm.bigint_value(BigInt::from(i.as_i128())))
}

/// [Temporal.Instant.prototype.add](https://tc39.es/proposal-temporal/#sec-temporal.instant.prototype.add)
fn add(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "add")?;
    let duration = to_duration(vm, vm.arg(args, 0))?;
    let result = i.add(&duration).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.Instant.prototype.subtract](https://tc39.es/proposal-temporal/#sec-temporal.instant.prototype.subtract)
fn subtract(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "subtract")?;
    let duration = to_duration(vm, vm.arg(args, 0))?;
    let result = i.subtract(&duration).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.Instant.prototype.round](https://tc39.es/proposal-temporal/#sec-temporal.instant.prototype.round)
fn round(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "round")?;
    let options = round_to_options(vm, vm.arg(args, 0), false)?;
    let result = i.round(options).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.Instant.prototype.equals](https://tc39.es/proposal-temporal/#sec-temporal.instant.prototype.equals)
fn equals(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "equals")?;
    let other = to_instant(vm, vm.arg(args, 0))?;
    Ok(Value::bool(i == other))
}

/// [Temporal.Instant.prototype.toString](https://tc39.es/proposal-temporal/#sec-temporal.instant.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "toString")?;
    let options = options_object(vm, vm.arg(args, 0))?;
    // 4-9. fractionalSecondDigits, roundingMode, smallestUnit, timeZone.
    let rounding = options::to_string_rounding(vm, options)?;
    let time_zone = match options {
        Some(o) => get(vm, o, "timeZone")?,
        None => Value::UNDEFINED,
    };
    // 10-11. The smallest unit is a time unit other than "hour".
    options::validate_to_string_unit(vm, &rounding)?;
    // 12. If timeZone is not undefined, set timeZone to ? ToTemporalTimeZoneIdentifier(timeZone).
    let time_zone = if time_zone.is_undefined() {
        None
    } else {
        Some(time_zone_identifier(vm, time_zone)?)
    };
    let s = i.to_ixdtf_string(time_zone, rounding).or_throw(vm)?;
    Ok(vm.string_value(&s))
}

/// [Temporal.Instant.prototype.toJSON](https://tc39.es/proposal-temporal/#sec-temporal.instant.prototype.tojson);
/// also `toLocaleString`, which without Intl returns the same string.
fn to_json(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "toJSON")?;
    let s = i.to_ixdtf_string(None, Default::default()).or_throw(vm)?;
    Ok(vm.string_value(&s))
}

/// [Temporal.Instant.prototype.toZonedDateTimeISO](https://tc39.es/proposal-temporal/#sec-temporal.instant.prototype.tozoneddatetimeiso)
fn to_zoned_date_time_iso(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let i = this_instant(vm, this, "toZonedDateTimeISO")?;
    let time_zone = time_zone_identifier(vm, vm.arg(args, 0))?;
    let result = i.to_zoned_date_time_iso(time_zone).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Date.prototype.toTemporalInstant](https://tc39.es/proposal-temporal/#sec-date.prototype.totemporalinstant)
pub(super) fn date_to_temporal_instant(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    // 1-2. Let t be dateObject.[[DateValue]].
    let (_, t) = crate::builtins::date::this_time_value(vm, this, "toTemporalInstant")?;
    // 3. Let ns be ? NumberToBigInt(t) × ℤ(10**6).
    if t.is_nan() {
        return Err(vm.range_error("Invalid Date has no instant"));
    }
    let instant = Instant::try_new(t as i128 * 1_000_000).or_throw(vm)?;
    create(vm, instant, Value::UNDEFINED)
}

impl Difference for Instant {
    const UNITS: UnitGroup = UnitGroup::Time;
    fn convert(vm: &mut Vm, other: Value) -> JsResult<Self> {
        to_instant(vm, other)
    }
    fn until(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        Instant::until(self, other, settings)
    }
    fn since(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        Instant::since(self, other, settings)
    }
}
