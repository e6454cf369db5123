//! `Temporal.Duration` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-duration-objects)).

use super::options::{
    self, Options, UnitGroup, options_object, parse_unit, partial_duration, relative_to,
    rounding_increment, rounding_mode, to_duration, to_integer_if_integral, unit_option,
    validate_unit,
};
use super::{OrThrow, TypeSpec, create, this_value};
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use temporal_rs::Duration;
use temporal_rs::options::{RoundingOptions, Unit};
use temporal_rs::partial::PartialDuration;

pub(super) const SPEC: TypeSpec = TypeSpec {
    name: "Duration",
    tag: "Temporal.Duration",
    constructor,
    length: 0,
    statics: &[("from", from, 1), ("compare", compare, 2)],
    getters: &[&[
        ("years", years),
        ("months", months),
        ("weeks", weeks),
        ("days", days),
        ("hours", hours),
        ("minutes", minutes),
        ("seconds", seconds),
        ("milliseconds", milliseconds),
        ("microseconds", microseconds),
        ("nanoseconds", nanoseconds),
        ("sign", sign),
        ("blank", blank),
    ]],
    methods: &[&[
        ("with", with, 1),
        ("negated", negated, 0),
        ("abs", abs, 0),
        ("add", add, 1),
        ("subtract", subtract, 1),
        ("round", round, 1),
        ("total", total, 1),
        ("toString", to_string, 0),
        ("toJSON", to_json, 0),
        ("toLocaleString", to_json, 0),
    ]],
};

/// [Temporal.Duration](https://tc39.es/proposal-temporal/#sec-temporal.duration)
fn constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    // 1. If NewTarget is undefined, throw a TypeError exception.
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Temporal.Duration must be called with new"));
    }
    // 2-11. Each argument: undefined is 0, anything else ToIntegerIfIntegral.
    let mut fields = [0f64; 10];
    for (i, slot) in fields.iter_mut().enumerate() {
        let v = vm.arg(args, i);
        if !v.is_undefined() {
            *slot = to_integer_if_integral(vm, v)?;
        }
    }
    // 12. Return ? CreateTemporalDuration(..., NewTarget).
    let d = duration_from_numbers(&fields).or_throw(vm)?;
    create(vm, d, args.new_target)
}

/// A Duration from ten integral Numbers (CreateTemporalDuration's validity check is
/// temporal_rs's).
fn duration_from_numbers(f: &[f64; 10]) -> temporal_rs::TemporalResult<Duration> {
    let int = options::saturate_i64;
    Duration::new(
        int(f[0]),
        int(f[1]),
        int(f[2]),
        int(f[3]),
        int(f[4]),
        int(f[5]),
        int(f[6]),
        int(f[7]),
        f[8] as i128,
        f[9] as i128,
    )
}

/// [Temporal.Duration.from](https://tc39.es/proposal-temporal/#sec-temporal.duration.from)
fn from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let d = to_duration(vm, vm.arg(args, 0))?;
    create(vm, d, Value::UNDEFINED)
}

/// [Temporal.Duration.compare](https://tc39.es/proposal-temporal/#sec-temporal.duration.compare)
fn compare(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let one = to_duration(vm, vm.arg(args, 0))?;
    let two = to_duration(vm, vm.arg(args, 1))?;
    let options = options_object(vm, vm.arg(args, 2))?;
    let relative_to = relative_to(vm, options)?;
    let order = one.compare(&two, relative_to).or_throw(vm)?;
    Ok(Value::int(order as i32))
}

fn this_duration(vm: &mut Vm, this: Value, method: &str) -> JsResult<Duration> {
    this_value::<Duration>(vm, this, method)
}

macro_rules! getters {
    ($($name:ident),*) => {$(
        #[doc = concat!("[get Temporal.Duration.prototype.", stringify!($name), "](https://tc39.es/proposal-temporal/#sec-get-temporal.duration.prototype.", stringify!($name), ")")]
        fn $name(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
            let d = this_duration(vm, this, stringify!($name))?;
            Ok(Value::number(d.$name() as f64))
        }
    )*};
}

getters!(
    years,
    months,
    weeks,
    days,
    hours,
    minutes,
    seconds,
    milliseconds,
    microseconds,
    nanoseconds
);

/// [get Temporal.Duration.prototype.sign](https://tc39.es/proposal-temporal/#sec-get-temporal.duration.prototype.sign)
fn sign(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "sign")?;
    Ok(Value::int(d.sign() as i32))
}

/// [get Temporal.Duration.prototype.blank](https://tc39.es/proposal-temporal/#sec-get-temporal.duration.prototype.blank)
fn blank(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "blank")?;
    Ok(Value::bool(d.is_zero()))
}

/// [Temporal.Duration.prototype.with](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "with")?;
    let Some(bag) = vm.arg(args, 0).as_object() else {
        return Err(vm.type_error("Duration.prototype.with needs a property bag"));
    };
    // 3. Let temporalDurationLike be ? ToTemporalPartialDurationRecord(temporalDurationLike).
    let p = partial_duration(vm, bag)?;
    // 4-13. Fields not given keep the duration's values.
    let merged = PartialDuration {
        years: Some(p.years.unwrap_or(d.years())),
        months: Some(p.months.unwrap_or(d.months())),
        weeks: Some(p.weeks.unwrap_or(d.weeks())),
        days: Some(p.days.unwrap_or(d.days())),
        hours: Some(p.hours.unwrap_or(d.hours())),
        minutes: Some(p.minutes.unwrap_or(d.minutes())),
        seconds: Some(p.seconds.unwrap_or(d.seconds())),
        milliseconds: Some(p.milliseconds.unwrap_or(d.milliseconds())),
        microseconds: Some(p.microseconds.unwrap_or(d.microseconds())),
        nanoseconds: Some(p.nanoseconds.unwrap_or(d.nanoseconds())),
    };
    let result = Duration::from_partial_duration(merged).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.Duration.prototype.negated](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.negated)
fn negated(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "negated")?;
    create(vm, d.negated(), Value::UNDEFINED)
}

/// [Temporal.Duration.prototype.abs](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.abs)
fn abs(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "abs")?;
    create(vm, d.abs(), Value::UNDEFINED)
}

/// [Temporal.Duration.prototype.add](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.add)
fn add(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "add")?;
    let other = to_duration(vm, vm.arg(args, 0))?;
    let result = d.add(&other).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.Duration.prototype.subtract](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.subtract)
fn subtract(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "subtract")?;
    let other = to_duration(vm, vm.arg(args, 0))?;
    let result = d.subtract(&other).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.Duration.prototype.round](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.round)
fn round(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "round")?;
    let round_to = vm.arg(args, 0);
    // 3. If roundTo is undefined, throw a TypeError exception.
    if round_to.is_undefined() {
        return Err(vm.type_error("round() needs a smallestUnit string or an options object"));
    }
    let mut options = RoundingOptions::default();
    let mut relative = None;
    if let Some(s) = round_to.as_string() {
        // 4. A string is the smallest unit.
        let s = vm.heap.string_to_rust(s);
        options.largest_unit = None;
        options.smallest_unit = Some(parse_unit(vm, &s, "smallestUnit")?);
    } else {
        // 5-14. largestUnit, relativeTo, roundingIncrement, roundingMode, smallestUnit.
        let bag = options_object(vm, round_to)?;
        options.largest_unit = unit_option(vm, bag, "largestUnit")?;
        relative = relative_to(vm, bag)?;
        options.increment = rounding_increment(vm, bag)?;
        options.rounding_mode = rounding_mode(vm, bag)?;
        options.smallest_unit = unit_option(vm, bag, "smallestUnit")?;
    }
    // 15. Perform ? ValidateTemporalUnitValue(smallestUnit, datetime).
    validate_unit(
        vm,
        options.smallest_unit,
        UnitGroup::DateTime,
        false,
        "smallestUnit",
    )?;
    // 20. Perform ? ValidateTemporalUnitValue(largestUnit, datetime, « auto »).
    validate_unit(
        vm,
        options.largest_unit,
        UnitGroup::DateTime,
        true,
        "largestUnit",
    )?;
    // 22. If smallestUnitPresent is false and largestUnitPresent is false, throw a RangeError.
    if options.smallest_unit.is_none() && options.largest_unit.is_none() {
        return Err(vm.range_error("round() needs smallestUnit or largestUnit"));
    }
    let result = d.round(options, relative).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.Duration.prototype.total](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.total)
fn total(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "total")?;
    let total_of = vm.arg(args, 0);
    // 3. If totalOf is undefined, throw a TypeError exception.
    if total_of.is_undefined() {
        return Err(vm.type_error("total() needs a unit string or an options object"));
    }
    let (relative, unit) = if let Some(s) = total_of.as_string() {
        let s = vm.heap.string_to_rust(s);
        (None, Some(parse_unit(vm, &s, "unit")?))
    } else {
        // 5-9. relativeTo, then unit.
        let bag: Options = options_object(vm, total_of)?;
        let relative = relative_to(vm, bag)?;
        (relative, unit_option(vm, bag, "unit")?)
    };
    // 9. The unit is required.
    let Some(unit) = unit else {
        return Err(vm.range_error("total() needs a unit"));
    };
    // 10. Perform ? ValidateTemporalUnitValue(unit, datetime).
    validate_unit(vm, Some(unit), UnitGroup::DateTime, false, "unit")?;
    let result = d.total(unit, relative).or_throw(vm)?;
    Ok(Value::number(result.as_inner()))
}

/// [Temporal.Duration.prototype.toString](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "toString")?;
    let options = options_object(vm, vm.arg(args, 0))?;
    let rounding = options::to_string_rounding(vm, options)?;
    // 7-8. A time unit, and neither hour nor minute.
    options::validate_to_string_unit(vm, &rounding)?;
    if rounding.smallest_unit == Some(Unit::Minute) {
        return Err(vm.range_error("smallestUnit must be second or a smaller unit"));
    }
    let s = d.as_temporal_string(rounding).or_throw(vm)?;
    Ok(vm.string_value(&s))
}

/// [Temporal.Duration.prototype.toJSON](https://tc39.es/proposal-temporal/#sec-temporal.duration.prototype.tojson);
/// also `toLocaleString`, which without Intl returns the same string.
fn to_json(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let d = this_duration(vm, this, "toJSON")?;
    let s = d.to_string();
    Ok(vm.string_value(&s))
}
