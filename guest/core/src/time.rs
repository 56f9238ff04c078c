//! Local calendar time without a time-zone database: the host supplies the UTC
//! offset, the guest does the arithmetic.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::{Error, ErrorKind, Result};

/// Largest accepted UTC offset magnitude, in minutes (just under a day).
pub const MAX_OFFSET_MINUTES: i32 = 1439;

/// The earliest instant a clock may be pinned to, 0001-01-02T00:00:00Z: at
/// any offset the local date is still in the year 1, so dates stay within
/// the years 1-9999 the store can name and the arithmetic cannot overflow.
pub const MIN_UNIX_SECONDS: i64 = -62_135_510_400;
/// The latest, 9999-12-30T23:59:59Z.
pub const MAX_UNIX_SECONDS: i64 = 253_402_214_399;

/// How an instance tells time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Local offset from UTC in minutes, east positive.
    pub utc_offset_minutes: i32,
    /// A pinned instant (Unix seconds); `None` reads the system clock.
    pub fixed_unix_seconds: Option<i64>,
}

impl Clock {
    /// The system clock at UTC.
    pub const UTC: Clock = Clock {
        utc_offset_minutes: 0,
        fixed_unix_seconds: None,
    };

    /// Check the offset and the pinned instant are in range.
    ///
    /// # Errors
    /// [`ErrorKind::InvalidOptions`] naming the value and the range.
    pub fn validate(&self) -> Result<()> {
        if let Some(unix) = self.fixed_unix_seconds
            && !(MIN_UNIX_SECONDS..=MAX_UNIX_SECONDS).contains(&unix)
        {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!(
                    "pinned time {unix} is out of range {MIN_UNIX_SECONDS}..={MAX_UNIX_SECONDS} (0001-01-02 to 9999-12-30 UTC)"
                ),
            ));
        }
        if self.utc_offset_minutes.abs() > MAX_OFFSET_MINUTES {
            return Err(Error::new(
                ErrorKind::InvalidOptions,
                format!(
                    "utc offset {} minutes is out of range -{MAX_OFFSET_MINUTES}..={MAX_OFFSET_MINUTES}",
                    self.utc_offset_minutes
                ),
            ));
        }
        Ok(())
    }

    /// The current local date and time.
    pub fn now(&self) -> LocalTime {
        LocalTime::from_unix(self.unix_seconds(), self.utc_offset_minutes)
    }

    /// The current instant in Unix seconds: the pinned one, or the system
    /// clock's.
    pub fn unix_seconds(&self) -> i64 {
        self.fixed_unix_seconds.unwrap_or_else(|| {
            match SystemTime::now().duration_since(UNIX_EPOCH) {
                Ok(d) => d.as_secs() as i64,
                Err(e) => -(e.duration().as_secs() as i64),
            }
        })
    }
}

/// A calendar date in the proleptic Gregorian calendar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: i32,
    month: u32,
    day: u32,
}

fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

impl Date {
    /// A date, if it exists (year 1-9999).
    pub fn new(year: i32, month: u32, day: u32) -> Option<Date> {
        let valid = (1..=9999).contains(&year)
            && (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month);
        valid.then_some(Date { year, month, day })
    }

    /// Days since 1970-01-01 (negative before).
    pub fn to_days(self) -> i64 {
        // Shift the year to start in March so the leap day is last.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// The date `days` after 1970-01-01.
    pub fn from_days(days: i64) -> Date {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// The day before.
    pub fn pred(self) -> Date {
        Date::from_days(self.to_days() - 1)
    }

    /// The year.
    pub fn year(self) -> i32 {
        self.year
    }

    /// The month, 1-12.
    pub fn month(self) -> u32 {
        self.month
    }

    /// The day of the month, 1-31.
    pub fn day(self) -> u32 {
        self.day
    }

    /// Days in this date's month.
    pub fn days_in_month(self) -> u32 {
        days_in_month(self.year, self.month)
    }

    /// The day of the week, 0 for Monday to 6 for Sunday.
    pub fn weekday(self) -> u32 {
        // 1970-01-01 was a Thursday.
        (self.to_days() + 3).rem_euclid(7) as u32
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// A local date and wall-clock time to the minute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalTime {
    /// The local calendar date.
    pub date: Date,
    /// Hour, 0-23.
    pub hour: u32,
    /// Minute, 0-59.
    pub minute: u32,
}

impl LocalTime {
    /// The local time at `unix` seconds for a zone `offset_minutes` east of UTC.
    pub fn from_unix(unix: i64, offset_minutes: i32) -> LocalTime {
        let local = unix + i64::from(offset_minutes) * 60;
        let days = local.div_euclid(86_400);
        let secs = local.rem_euclid(86_400);
        LocalTime {
            date: Date::from_days(days),
            hour: (secs / 3600) as u32,
            minute: (secs % 3600 / 60) as u32,
        }
    }

    /// `HH:MM`.
    pub fn hh_mm(&self) -> String {
        format!("{:02}:{:02}", self.hour, self.minute)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_days() {
        for days in [-800_000, -1, 0, 1, 59, 365, 11_016, 20_000, 2_932_896] {
            assert_eq!(Date::from_days(days).to_days(), days);
        }
        assert_eq!(Date::from_days(0).to_string(), "1970-01-01");
        assert_eq!(Date::new(2026, 5, 30).unwrap().to_days(), 20_603);
    }

    #[test]
    fn local_offsets_change_the_date() {
        // 2026-05-29T23:30:00Z
        let unix = 20_602 * 86_400 + 23 * 3600 + 30 * 60;
        let utc = LocalTime::from_unix(unix, 0);
        assert_eq!(
            (utc.date.to_string(), utc.hh_mm()),
            ("2026-05-29".into(), "23:30".into())
        );
        let cest = LocalTime::from_unix(unix, 120);
        assert_eq!(
            (cest.date.to_string(), cest.hh_mm()),
            ("2026-05-30".into(), "01:30".into())
        );
        let pdt = LocalTime::from_unix(unix, -420);
        assert_eq!(
            (pdt.date.to_string(), pdt.hh_mm()),
            ("2026-05-29".into(), "16:30".into())
        );
    }

    #[test]
    fn pred_crosses_months_and_leap_days() {
        assert_eq!(
            Date::new(2024, 3, 1).unwrap().pred().to_string(),
            "2024-02-29"
        );
        assert_eq!(
            Date::new(2026, 1, 1).unwrap().pred().to_string(),
            "2025-12-31"
        );
        assert_eq!(
            Date::new(2023, 3, 1).unwrap().pred().to_string(),
            "2023-02-28"
        );
    }

    #[test]
    fn offsets_out_of_range_are_rejected() {
        let clock = Clock {
            utc_offset_minutes: 1440,
            fixed_unix_seconds: None,
        };
        assert_eq!(
            clock.validate().unwrap_err().kind(),
            ErrorKind::InvalidOptions
        );
        let clock = Clock {
            utc_offset_minutes: -1439,
            fixed_unix_seconds: None,
        };
        assert!(clock.validate().is_ok());
    }
}
