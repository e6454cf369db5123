//! `Temporal.ZonedDateTime` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-zoneddatetime-objects)).

use super::options::{
    self, FieldSet, Options, UnitGroup, calendar_name, calendar_with_iso_default, disambiguation,
    offset_option, options_object, overflow, partial_temporal_object, read_fields, required_string,
    round_to_options, show_offset, time_zone_identifier, time_zone_name, to_calendar,
    zoned_partial,
};
use super::plain_date::constructor_calendar;
use super::plain_time::time_or_midnight;
use super::{
    Difference, OrThrow, TypeSpec, add_methods, create, date_getters, difference_methods,
    this_value, time_getters, value_of,
};
use crate::JsResult;
use crate::builtins::bigint::to_bigint;
use crate::interpreter::{Args, Vm};
use crate::value::Value;
use num_bigint::BigInt;
use temporal_rs::fields::ZonedDateTimeFields;
use temporal_rs::options::{DifferenceSettings, Disambiguation, OffsetDisambiguation, Overflow};
use temporal_rs::parsed_intermediates::ParsedZonedDateTime;
use temporal_rs::provider::TransitionDirection;
use temporal_rs::{Duration, TemporalResult};
use temporal_rs::{TimeZone, ZonedDateTime};

pub(super) const SPEC: TypeSpec = TypeSpec {
    name: "ZonedDateTime",
    tag: "Temporal.ZonedDateTime",
    constructor,
    length: 2,
    statics: &[("from", from, 1), ("compare", compare, 2)],
    getters: &[
        &date_getters::<ZonedDateTime>(),
        &time_getters::<ZonedDateTime>(),
        &[
            ("timeZoneId", time_zone_id),
            ("epochMilliseconds", epoch_milliseconds),
            ("epochNanoseconds", epoch_nanoseconds),
            ("hoursInDay", hours_in_day),
            ("offsetNanoseconds", offset_nanoseconds),
            ("offset", offset),
        ],
    ],
    methods: &[
        &difference_methods::<ZonedDateTime>(),
        &add_methods::<ZonedDateTime>(),
        &[
            ("with", with, 1),
            ("withPlainTime", with_plain_time, 0),
            ("withTimeZone", with_time_zone, 1),
            ("withCalendar", with_calendar, 1),
            ("round", round, 1),
            ("equals", equals, 1),
            ("toString", to_string, 0),
            ("toLocaleString", to_json, 0),
            ("toJSON", to_json, 0),
            ("startOfDay", start_of_day, 0),
            ("getTimeZoneTransition", get_time_zone_transition, 1),
            ("toInstant", to_instant, 0),
            ("toPlainDate", to_plain_date, 0),
            ("toPlainTime", to_plain_time_method, 0),
            ("toPlainDateTime", to_plain_date_time, 0),
        ],
    ],
};

/// [Temporal.ZonedDateTime](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime)
fn constructor(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    if args.new_target.is_undefined() {
        return Err(vm.type_error("Temporal.ZonedDateTime must be called with new"));
    }
    // 2-3. Epoch nanoseconds: ToBigInt, then IsValidEpochNanoseconds.
    let ns = to_bigint(vm, vm.arg(args, 0))?;
    let ns = match ns.as_bigint().map(|b| i128::try_from(vm.heap.bigint(b))) {
        Some(Ok(ns)) => ns,
        _ => return Err(vm.range_error("epoch nanoseconds are outside the representable range")),
    };
    // 4-6. The time zone must be a string naming one (not an ISO string).
    let Some(zone) = vm.arg(args, 1).as_string() else {
        return Err(vm.type_error("the time zone must be a string"));
    };
    let zone = vm.heap.string_to_rust(zone);
    let time_zone = TimeZone::try_from_identifier_str(&zone).or_throw(vm)?;
    // 7-9. The calendar.
    let calendar = constructor_calendar(vm, vm.arg(args, 2))?;
    let z = ZonedDateTime::try_new(ns, time_zone, calendar).or_throw(vm)?;
    create(vm, z, args.new_target)
}

/// The disambiguation, offset and overflow options ToTemporalZonedDateTime reads.
fn zoned_options(
    vm: &mut Vm,
    options: Options,
) -> JsResult<(Disambiguation, OffsetDisambiguation, Overflow)> {
    let d = disambiguation(vm, options)?;
    let o = offset_option(vm, options, OffsetDisambiguation::Reject)?;
    let overflow = overflow(vm, options)?;
    Ok((d, o, overflow))
}

/// [ToTemporalZonedDateTime](https://tc39.es/proposal-temporal/#sec-temporal-totemporalzoneddatetime)
pub(super) fn to_zoned(vm: &mut Vm, item: Value, options: Value) -> JsResult<ZonedDateTime> {
    if let Some(obj) = item.as_object() {
        // 2.a. A ZonedDateTime: the options are still read.
        if let Some(z) = value_of::<ZonedDateTime>(vm, item) {
            let options = options_object(vm, options)?;
            zoned_options(vm, options)?;
            return Ok(z);
        }
        // 2.b-c. A property bag: calendar, then the fields; the time zone is required.
        let calendar = calendar_with_iso_default(vm, obj)?;
        let fields = read_fields(vm, obj, &calendar, FieldSet::ZONED_WITH_TIME_ZONE, false)?;
        let Some(time_zone) = fields.time_zone else {
            return Err(vm.type_error("a ZonedDateTime property bag needs a timeZone"));
        };
        // 2.g-j. The options.
        let options = options_object(vm, options)?;
        let (disambiguation, offset, overflow) = zoned_options(vm, options)?;
        let partial = zoned_partial(
            fields.calendar_fields(),
            fields.partial_time(vm, overflow)?,
            fields.offset,
            time_zone,
            calendar,
        );
        return ZonedDateTime::from_partial(
            partial,
            Some(overflow),
            Some(disambiguation),
            Some(offset),
        )
        .or_throw(vm);
    }
    // 3. A string, parsed before the options are read.
    let s = required_string(vm, item, "a zoned date-time")?;
    let parsed = ParsedZonedDateTime::from_utf8(s.as_bytes()).or_throw(vm)?;
    let options = options_object(vm, options)?;
    let (disambiguation, offset, _) = zoned_options(vm, options)?;
    ZonedDateTime::from_parsed(parsed, disambiguation, offset).or_throw(vm)
}

/// [Temporal.ZonedDateTime.from](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.from)
fn from(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let z = to_zoned(vm, vm.arg(args, 0), vm.arg(args, 1))?;
    create(vm, z, Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.compare](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.compare)
fn compare(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let one = to_zoned(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    let two = to_zoned(vm, vm.arg(args, 1), Value::UNDEFINED)?;
    Ok(Value::int(one.compare_instant(&two) as i32))
}

fn this_zoned(vm: &mut Vm, this: Value, method: &str) -> JsResult<ZonedDateTime> {
    this_value::<ZonedDateTime>(vm, this, method)
}

/// [get Temporal.ZonedDateTime.prototype.timeZoneId](https://tc39.es/proposal-temporal/#sec-get-temporal.zoneddatetime.prototype.timezoneid)
fn time_zone_id(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "timeZoneId")?;
    let id = z.time_zone().identifier().or_throw(vm)?;
    Ok(vm.string_value(&id))
}

/// [get Temporal.ZonedDateTime.prototype.epochMilliseconds](https://tc39.es/proposal-temporal/#sec-get-temporal.zoneddatetime.prototype.epochmilliseconds)
fn epoch_milliseconds(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "epochMilliseconds")?;
    Ok(Value::number(z.epoch_milliseconds() as f64))
}

/// [get Temporal.ZonedDateTime.prototype.epochNanoseconds](https://tc39.es/proposal-temporal/#sec-get-temporal.zoneddatetime.prototype.epochnanoseconds)
fn epoch_nanoseconds(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "epochNanoseconds")?;
    Ok(vm.bigint_value(BigInt::from(z.epoch_nanoseconds().as_i128())))
}

/// [get Temporal.ZonedDateTime.prototype.hoursInDay](https://tc39.es/proposal-temporal/#sec-get-temporal.zoneddatetime.prototype.hoursinday)
fn hours_in_day(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "hoursInDay")?;
    let hours = z.hours_in_day().or_throw(vm)?;
    Ok(Value::number(hours))
}

/// [get Temporal.ZonedDateTime.prototype.offsetNanoseconds](https://tc39.es/proposal-temporal/#sec-get-temporal.zoneddatetime.prototype.offsetnanoseconds)
fn offset_nanoseconds(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "offsetNanoseconds")?;
    Ok(Value::number(z.offset_nanoseconds() as f64))
}

/// [get Temporal.ZonedDateTime.prototype.offset](https://tc39.es/proposal-temporal/#sec-get-temporal.zoneddatetime.prototype.offset)
fn offset(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "offset")?;
    let s = z.offset();
    Ok(vm.string_value(&s))
}

/// [Temporal.ZonedDateTime.prototype.with](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.with)
fn with(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "with")?;
    let bag = partial_temporal_object(vm, vm.arg(args, 0))?;
    // 8. The date, time and offset fields (no time zone), at least one present.
    let fields = read_fields(vm, bag, z.calendar(), FieldSet::DATE_TIME_OFFSET, true)?;
    // 10-13. disambiguation, offset (default prefer), overflow.
    let options = options_object(vm, vm.arg(args, 1))?;
    let disambiguation = disambiguation(vm, options)?;
    let offset = offset_option(vm, options, OffsetDisambiguation::Prefer)?;
    let overflow = overflow(vm, options)?;
    let mut zoned_fields = ZonedDateTimeFields::new();
    zoned_fields.calendar_fields = fields.calendar_fields();
    zoned_fields.time = fields.partial_time(vm, overflow)?;
    zoned_fields.offset = fields.offset;
    let result = z
        .with(
            zoned_fields,
            Some(disambiguation),
            Some(offset),
            Some(overflow),
        )
        .or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.withPlainTime](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.withplaintime)
fn with_plain_time(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "withPlainTime")?;
    let time = vm.arg(args, 0);
    let time = time_or_midnight(vm, time)?;
    let result = z.with_plain_time(time).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.withTimeZone](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.withtimezone)
fn with_time_zone(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "withTimeZone")?;
    let time_zone = time_zone_identifier(vm, vm.arg(args, 0))?;
    let result = z.with_timezone(time_zone).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.withCalendar](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.withcalendar)
fn with_calendar(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "withCalendar")?;
    let calendar = to_calendar(vm, vm.arg(args, 0))?;
    create(vm, z.with_calendar(calendar), Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.round](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.round)
fn round(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "round")?;
    let options = round_to_options(vm, vm.arg(args, 0), true)?;
    let result = z.round(options).or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.equals](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.equals)
fn equals(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "equals")?;
    let other = to_zoned(vm, vm.arg(args, 0), Value::UNDEFINED)?;
    let same = z.equals(&other).or_throw(vm)?;
    Ok(Value::bool(same))
}

/// [Temporal.ZonedDateTime.prototype.toString](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.tostring)
fn to_string(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "toString")?;
    let options = options_object(vm, vm.arg(args, 0))?;
    // calendarName, fractionalSecondDigits, offset, roundingMode, smallestUnit, timeZoneName.
    let show_calendar = calendar_name(vm, options)?;
    let precision = options::fractional_second_digits(vm, options)?;
    let show_offset = show_offset(vm, options)?;
    let rounding_mode = options::rounding_mode(vm, options)?;
    let smallest_unit = options::unit_option(vm, options, "smallestUnit")?;
    let show_time_zone = time_zone_name(vm, options)?;
    let rounding = temporal_rs::options::ToStringRoundingOptions {
        precision,
        smallest_unit,
        rounding_mode,
    };
    options::validate_to_string_unit(vm, &rounding)?;
    let s = z
        .to_ixdtf_string(show_offset, show_time_zone, show_calendar, rounding)
        .or_throw(vm)?;
    Ok(vm.string_value(&s))
}

/// [Temporal.ZonedDateTime.prototype.toJSON](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.tojson);
/// also `toLocaleString`, which without Intl returns the same string.
fn to_json(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "toJSON")?;
    let s = z
        .to_ixdtf_string(
            Default::default(),
            Default::default(),
            Default::default(),
            Default::default(),
        )
        .or_throw(vm)?;
    Ok(vm.string_value(&s))
}

/// [Temporal.ZonedDateTime.prototype.startOfDay](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.startofday)
fn start_of_day(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "startOfDay")?;
    let result = z.start_of_day().or_throw(vm)?;
    create(vm, result, Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.getTimeZoneTransition](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.gettimezonetransition)
fn get_time_zone_transition(vm: &mut Vm, this: Value, args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "getTimeZoneTransition")?;
    let param = vm.arg(args, 0);
    // 3. If directionParam is undefined, throw a TypeError exception.
    if param.is_undefined() {
        return Err(vm.type_error("getTimeZoneTransition() needs a direction"));
    }
    // 4-6. A string is the direction; otherwise GetDirectionOption on the options bag.
    let direction = if let Some(s) = param.as_string() {
        Some(vm.heap.string_to_rust(s))
    } else {
        let options = options_object(vm, param)?;
        match options {
            Some(o) => {
                let v = options::get(vm, o, "direction")?;
                if v.is_undefined() {
                    None
                } else {
                    let s = vm.to_string(v)?;
                    Some(vm.heap.string_to_rust(s))
                }
            }
            None => None,
        }
    };
    let direction = match direction.as_deref() {
        Some("next") => TransitionDirection::Next,
        Some("previous") => TransitionDirection::Previous,
        _ => return Err(vm.range_error("direction must be 'next' or 'previous'")),
    };
    match z.get_time_zone_transition(direction).or_throw(vm)? {
        Some(result) => create(vm, result, Value::UNDEFINED),
        None => Ok(Value::NULL),
    }
}

/// [Temporal.ZonedDateTime.prototype.toInstant](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.toinstant)
fn to_instant(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "toInstant")?;
    create(vm, z.to_instant(), Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.toPlainDate](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.toplaindate)
fn to_plain_date(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "toPlainDate")?;
    create(vm, z.to_plain_date(), Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.toPlainTime](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.toplaintime)
fn to_plain_time_method(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "toPlainTime")?;
    create(vm, z.to_plain_time(), Value::UNDEFINED)
}

/// [Temporal.ZonedDateTime.prototype.toPlainDateTime](https://tc39.es/proposal-temporal/#sec-temporal.zoneddatetime.prototype.toplaindatetime)
fn to_plain_date_time(vm: &mut Vm, this: Value, _args: Args) -> JsResult<Value> {
    let z = this_zoned(vm, this, "toPlainDateTime")?;
    create(vm, z.to_plain_date_time(), Value::UNDEFINED)
}

impl Difference for ZonedDateTime {
    const UNITS: UnitGroup = UnitGroup::DateTime;
    fn convert(vm: &mut Vm, other: Value) -> JsResult<Self> {
        to_zoned(vm, other, Value::UNDEFINED)
    }
    fn until(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        ZonedDateTime::until(self, other, settings)
    }
    fn since(&self, other: &Self, settings: DifferenceSettings) -> TemporalResult<Duration> {
        ZonedDateTime::since(self, other, settings)
    }
    fn calendar_year(&self) -> Option<(&temporal_rs::Calendar, i32)> {
        Some((self.calendar(), self.year()))
    }
}
