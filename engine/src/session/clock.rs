//! UTC timestamps for session files, without a calendar crate: the civil date from a day
//! count (Howard Hinnant's `civil_from_days`).

use std::time::{SystemTime, UNIX_EPOCH};

/// A moment, to the millisecond.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Stamp {
    unix_millis: i64,
}

impl Stamp {
    pub fn now() -> Self {
        Self::from(SystemTime::now())
    }

    /// `2025-03-09T14:05:07.042Z`: sorts as it reads.
    pub fn iso(&self) -> String {
        let (seconds, millis) = (self.unix_millis.div_euclid(1000), self.unix_millis.rem_euclid(1000));
        let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
        let (year, month, day) = civil_from_days(days);
        format!(
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
            second_of_day / 3600,
            second_of_day / 60 % 60,
            second_of_day % 60
        )
    }
}

impl From<SystemTime> for Stamp {
    fn from(time: SystemTime) -> Self {
        let unix_millis = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
            Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
        };
        Self { unix_millis }
    }
}

/// The (year, month, day) of the day `days` after 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

#[cfg(test)]
#[path = "clock_tests.rs"]
mod tests;
