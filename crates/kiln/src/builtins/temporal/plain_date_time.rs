//! `Temporal.PlainDateTime` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-plaindatetime-objects)).

use super::options::{
    self, FieldSet, UnitGroup, calendar_name, calendar_with_iso_default, disambiguation,
    options_object, overflow, partial_temporal_object, read_fields, required_string,
    round_to_options, time_zone_identifier, to_calendar, to_integer_with_truncation,
};
use super::plain_date::constructor_calendar;
use super::plain_time::{time_arguments, time_or_midnight};
use super::{
    Difference, OrThrow, TypeSpec, add_methods, create, date_getters, difference_methods,
    this_value, time_getters, value_of,
};
use crate::JsResult;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use temporal_rs::fields::DateTimeFields;
use temporal_rs::options::DifferenceSettings;
use temporal_rs::partial::PartialDateTime;
use temporal_rs::{Duration, TemporalResult};
use temporal_rs::{PlainDate, PlainDateTime, ZonedDateTime};

pub(super) const SPEC: TypeSpec = TypeSpec {
    name: "PlainDateTime",
    tag: "Temporal.PlainDateTime",
    constructor,
    length: 3,
    statics: &[("from", from, 1), ("compare", compare, 2)],
    getters: &[
        &date_getters::<PlainDateTime>(),
        &time_getters::<PlainDateTime>(),
    ],
    methods: &[
        &difference_methods::<PlainDateTime>(),
        &add_methods::<PlainDateTime>(),
        &[
            ("with", with, 1),
            ("withPlainTime", with_plain_time, 0),
            ("withCalendar", with_calendar, 1),
            ("round", round, 1),
            ("equals", equals, 1),
            ("toString", to_string, 0),
            ("toLocaleString", to_json, 0),
            ("toJSON", to_json, 0),
            ("toZonedDateTime", to_zoned_date_time, 1),
            ("toPlainDate", to_plain_date, 0),
            ("toPlainTime", to_plain_time_method, 0),
        ],
    ],
};

/// [Temporal.PlainDateTime](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime)
fn constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Temporal.PlainDateTime must be called with new"));
    }
    // 2-4. The date, ToIntegerWithTruncation.
    let y = to_integer_with_truncation(vm, vm.arg(args, 0))?;
    let m = to_integer_with_truncation(vm, vm.arg(args, 1))?;
    let d = to_integer_with_truncation(vm, vm.arg(args, 2))?;
    // 5-10. The time: undefined is 0.
    let [h, mi, s, ms, us, ns] = time_arguments(vm, args, 3)?;
    // 11-13. The calendar.
    let calendar = constructor_calendar(vm, vm.arg(args, 9))?;
    // 14-16. IsValidISODate, IsValidTime, ISODateTimeWithinLimits.
    let dt = PlainDateTime::try_new(
        options::saturate_i32(y),
        m.clamp(0.0, 255.0) as u8,
        d.clamp(0.0, 255.0) as u8,
        h as u8,
        mi as u8,
        s as u8,
        ms,
        us,
        ns,
        calendar,
    )
    .or_throw(vm)?;
    create(vm, dt, args.new_target)
}

/// [ToTemporalDateTime](https://tc39.es/proposal-temporal/#sec-temporal-totemporaldatetime)
pub(super) fn to_plain_date_time(
    vm: &mut Vm,
    item: Value,
    options: Value,
) -> JsResult<PlainDateTime> {
    if let Some(obj) = item.as_object() {
        // 2.a-c. Temporal objects with a date: the options are still read.
        let dt = if let Some(d) = value_of::<PlainDateTime>(vm, item) {
            Some(d)
        } else if let Some(z) = value_of::<ZonedDateTime>(vm, item) {
            Some(z.to_plain_date_time())
        } else if let Some(d) = value_of::<PlainDate>(vm, item) {
            Some(d.to_plain_date_time(None).or_throw(vm)?)
        } else {
            None
        };
        if let Some(dt) = dt {
            let options = options_object(vm, options)?;
            overflow(vm, options)?;
            return Ok(dt);
        }
        // 2.d-h. A property bag: calendar, fields, then options.
        let calendar = calendar_with_iso_default(vm, obj)?;
        let fields = read_fields(vm, obj, &calendar, FieldSet::DATE_TIME, false)?;
        let options = options_object(vm, options)?;
        let overflow = overflow(vm, options)?;
        let partial = PartialDateTime {
            fields: DateTimeFields {
                calendar_fields: fields.calendar_fields(),
                time: fields.partial_time(vm, overflow)?,
            },
            calendar,
        };
        return PlainDateTime::from_partial(partial, Some(overflow)).or_throw(vm);
    }
    // 3. A string, parsed before the options are read.
    let s = required_string(vm, item, "a date-time")?;
    let dt = PlainDateTime::from_utf8(s.as_bytes()).or_throw(vm)?;
    let options = options_object(vm, options)?;
    overflow(vm, options)?;
    Ok(dt)
}

/// [Temporal.PlainDateTime.from](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.from)
fn from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let dt = to_plain_date_time(vm, vm.arg(args, 0), vm.arg(args, 1))?;
    create(vm, dt, Value::UNDEFINED)
}

/// [Temporal.PlainDateTime.compare](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.compare)
fn compare(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let one = to_plain_date_time(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    let two = to_plain_date_time(vm, vm.arg(args, 1), Value::UNDEFINED)?;
    Ok(Value::int(one.compare_iso(&two) as i32))
}

fn this_date_time(vm: &mut Vm, this: Value, method: &str) -> JsResult<PlainDateTime> {
    this_value::<PlainDateTime>(vm, this, method)
}

/// [Temporal.PlainDateTime.prototype.with](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "with")?;
    let bag = partial_temporal_object(vm, vm.arg(args, 0))?;
    let fields = read_fields(vm, bag, dt.calendar(), FieldSet::DATE_TIME, true)?;
    let options = options_object(vm, vm.arg(args, 1))?;
    let overflow = overflow(vm, options)?;
    let fields = DateTimeFields {
        calendar_fields: fields.calendar_fields(),
        time: fields.partial_time(vm, overflow)?,
    };
    let result = dt.with(fields, Some(overflow)).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainDateTime.prototype.withPlainTime](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.withplaintime)
fn with_plain_time(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "withPlainTime")?;
    let time = vm.arg(args, 0);
    let time = time_or_midnight(vm, time)?;
    let result = dt.with_time(time).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainDateTime.prototype.withCalendar](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.withcalendar)
fn with_calendar(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "withCalendar")?;
    let calendar = to_calendar(vm, vm.arg(args, 0))?;
    create(vm, dt.with_calendar(calendar), Value::UNDEFINED)
}

/// [Temporal.PlainDateTime.prototype.round](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.round)
fn round(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "round")?;
    let options = round_to_options(vm, vm.arg(args, 0), true)?;
    let result = dt.round(options).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainDateTime.prototype.equals](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.equals)
fn equals(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "equals")?;
    let other = to_plain_date_time(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    Ok(Value::bool(dt == other))
}

/// [Temporal.PlainDateTime.prototype.toString](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "toString")?;
    let options = options_object(vm, vm.arg(args, 0))?;
    // calendarName, then fractionalSecondDigits, roundingMode and smallestUnit.
    let show_calendar = calendar_name(vm, options)?;
    let rounding = options::to_string_rounding(vm, options)?;
    options::validate_to_string_unit(vm, &rounding)?;
    let s = dt.to_ixdtf_string(rounding, show_calendar).or_throw(vm)?;
    Ok(vm.string_value(&s))
}

/// [Temporal.PlainDateTime.prototype.toJSON](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.tojson);
/// also `toLocaleString`, which without Intl returns the same string.
fn to_json(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "toJSON")?;
    let s = dt
        .to_ixdtf_string(Default::default(), Default::default())
        .or_throw(vm)?;
    Ok(vm.string_value(&s))
}

/// [Temporal.PlainDateTime.prototype.toZonedDateTime](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.tozoneddatetime)
fn to_zoned_date_time(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "toZonedDateTime")?;
    let time_zone = time_zone_identifier(vm, vm.arg(args, 0))?;
    let options = options_object(vm, vm.arg(args, 1))?;
    let disambiguation = disambiguation(vm, options)?;
    let result = dt
        .to_zoned_date_time(time_zone, disambiguation)
        .or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.PlainDateTime.prototype.toPlainDate](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.toplaindate)
fn to_plain_date(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "toPlainDate")?;
    create(vm, dt.to_plain_date(), Value::UNDEFINED)
}

/// [Temporal.PlainDateTime.prototype.toPlainTime](https://tc39.es/proposal-temporal/#sec-temporal.plaindatetime.prototype.toplaintime)
fn to_plain_time_method(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let dt = this_date_time(vm, this, "toPlainTime")?;
    create(vm, dt.to_plain_time(), Value::UNDEFINED)
}

impl Difference for PlainDateTime {
    const UNITS: UnitGroup = UnitGroup::DateTime;
    fn convert(vm: &mut Vm, other: Value) -> JsResult<Self> {
        to_plain_date_time(vm, other, Value::UNDEFINED)
    }
    fn until(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        PlainDateTime::until(self, other, settings)
    }
    fn since(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        PlainDateTime::since(self, other, settings)
    }
    fn calendar_year(&self) -> Option<(&temporal_rs::Calendar, i32)> {
        Some((self.calendar(), self.year()))
    }
}
