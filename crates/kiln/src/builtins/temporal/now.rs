//! `Temporal.Now` ([spec](https://tc39.es/proposal-temporal/#sec-temporal-now-object)).
//!
//! The instant is the runtime's clock (`date::now`, which a host can replace for
//! deterministic runs), in milliseconds; the system time zone is UTC.

use super::options::time_zone_identifier;
use super::{OrThrow, create};
use crate::JsResult;
use crate::builtins::{date, define_to_string_tag, new_plain_object};
use crate::heap::ObjectId;
use crate::interpreter::{Args, Vm};
use crate::object::Attrs;
use crate::value::Value;
use temporal_rs::host::{HostClock, HostHooks, HostTimeZone};
use temporal_rs::now::Now;
use temporal_rs::provider::TimeZoneProvider;
use temporal_rs::unix_time::EpochNanoseconds;
use temporal_rs::{TemporalResult, TimeZone};

/// Kiln's host hooks for temporal_rs: one reading of the runtime's clock, and UTC.
struct KilnHost {
    epoch_ns: i128,
}

impl HostClock for KilnHost {
    fn get_host_epoch_nanoseconds(&self) -> TemporalResult<EpochNanoseconds> {
        Ok(EpochNanoseconds::from(self.epoch_ns))
    }
}

impl HostTimeZone for KilnHost {
    fn get_host_time_zone(
        &self,
        provider: &(impl TimeZoneProvider + ?Sized),
    ) -> TemporalResult<TimeZone> {
        Ok(TimeZone::utc_with_provider(provider))
    }
}

impl HostHooks for KilnHost {}

/// [SystemUTCEpochNanoseconds](https://tc39.es/proposal-temporal/#sec-temporal-systemutcepochnanoseconds)
/// through the runtime's clock.
fn now(vm: &Vm) -> Now<KilnHost> {
    let ms = date::now(vm);
    let epoch_ns = if ms.is_finite() {
        ms as i128 * 1_000_000
    } else {
        0
    };
    Now::new(KilnHost { epoch_ns })
}

/// The optional time zone argument of the `*ISO` functions: undefined is the
/// system time zone.
fn time_zone_argument(vm: &mut Vm, args: Args) -> JsResult<Option<TimeZone>> {
    let v = vm.arg(args, 0);
    if v.is_undefined() {
        return Ok(None);
    }
    time_zone_identifier(vm, v).map(Some)
}

/// [Temporal.Now.timeZoneId](https://tc39.es/proposal-temporal/#sec-temporal.now.timezoneid)
fn time_zone_id(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    Ok(vm.intern_value("UTC"))
}

/// [Temporal.Now.instant](https://tc39.es/proposal-temporal/#sec-temporal.now.instant)
fn instant(vm: &mut Vm, _this: Value, _args: Args) -> JsResult<Value> {
    let i = now(vm).instant().or_throw(vm)?;
    create(vm, i, Value::UNDEFINED)
}

/// [Temporal.Now.plainDateTimeISO](https://tc39.es/proposal-temporal/#sec-temporal.now.plaindatetimeiso)
fn plain_date_time_iso(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let zone = time_zone_argument(vm, args)?;
    let dt = now(vm).plain_date_time_iso(zone).or_throw(vm)?;
    create(vm, dt, Value::UNDEFINED)
}

/// [Temporal.Now.zonedDateTimeISO](https://tc39.es/proposal-temporal/#sec-temporal.now.zoneddatetimeiso)
fn zoned_date_time_iso(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let zone = time_zone_argument(vm, args)?;
    let z = now(vm).zoned_date_time_iso(zone).or_throw(vm)?;
    create(vm, z, Value::UNDEFINED)
}

/// [Temporal.Now.plainDateISO](https://tc39.es/proposal-temporal/#sec-temporal.now.plaindateiso)
fn plain_date_iso(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let zone = time_zone_argument(vm, args)?;
    let d = now(vm).plain_date_iso(zone).or_throw(vm)?;
    create(vm, d, Value::UNDEFINED)
}

/// [Temporal.Now.plainTimeISO](https://tc39.es/proposal-temporal/#sec-temporal.now.plaintimeiso)
fn plain_time_iso(vm: &mut Vm, _this: Value, args: Args) -> JsResult<Value> {
    let zone = time_zone_argument(vm, args)?;
    let t = now(vm).plain_time_iso(zone).or_throw(vm)?;
    create(vm, t, Value::UNDEFINED)
}

/// Create `Temporal.Now` on the namespace.
pub(super) fn init(vm: &mut Vm, namespace: ObjectId) {
    let now = new_plain_object(vm);
    define_to_string_tag(vm, now, "Temporal.Now");
    vm.define_native(now, "timeZoneId", time_zone_id, 0);
    vm.define_native(now, "instant", instant, 0);
    vm.define_native(now, "plainDateTimeISO", plain_date_time_iso, 0);
    vm.define_native(now, "zonedDateTimeISO", zoned_date_time_iso, 0);
    vm.define_native(now, "plainDateISO", plain_date_iso, 0);
    vm.define_native(now, "plainTimeISO", plain_time_iso, 0);
    let key = vm.key("Now");
    vm.define_builtin(namespace, key, Value::object(now), Attrs::HIDDEN);
}
