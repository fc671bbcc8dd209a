//! The caller's clock, read from the ISO 8601 strings calls carry (`now`): the core has no
//! clock of its own, so the idempotency guard measures time between two of those strings.

use crate::providers::retry::days_from_civil;

/// Milliseconds since 1970-01-01T00:00:00Z of `iso` (`2026-11-26T02:00:00.123Z`, with `Z`,
/// an offset `+01:00` / `+0100`, or no zone, read as UTC), or `None` when it does not read.
pub fn millis(iso: &str) -> Option<i64> {
    let s = iso.trim();
    let num = |from: usize, to: usize| -> Option<i64> {
        let part = s.get(from..to)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let bytes = s.as_bytes();
    if bytes.len() < 19 || bytes[4] != b'-' || bytes[7] != b'-' || bytes[13] != b':' || bytes[16] != b':' {
        return None;
    }
    if !matches!(bytes[10], b'T' | b't' | b' ') {
        return None;
    }
    let (y, mo, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (h, mi, sec) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut rest = &s[19..];
    let mut ms = 0;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded = format!("{:0<3}", &frac[..digits.min(3)]);
        ms = padded.parse::<i64>().ok()?;
        rest = &frac[digits..];
    }
    let offset = match rest {
        "" | "Z" | "z" => 0,
        zone => {
            let sign = match zone.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hm = zone[1..].replace(':', "");
            if hm.len() != 4 || !hm.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            let (oh, om) = (hm[..2].parse::<i64>().ok()?, hm[2..].parse::<i64>().ok()?);
            sign * (oh * 60 + om)
        }
    };
    let days = days_from_civil(y, mo, d);
    Some((((days * 24 + h) * 60 + mi - offset) * 60 + sec) * 1000 + ms)
}

/// Seconds from `earlier` to `later` (both ISO 8601), when both read.
pub fn seconds_between(earlier: &str, later: &str) -> Option<f64> {
    Some((millis(later)? - millis(earlier)?) as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_iso_strings_as_javascript_writes_them() {
        assert_eq!(millis("1970-01-01T00:00:00.000Z"), Some(0));
        // Date.parse("2026-11-26T02:00:00.123Z")
        assert_eq!(millis("2026-11-26T02:00:00.123Z"), Some(1_795_658_400_123));
        assert_eq!(millis("2000-02-29T12:34:56Z"), Some(951_827_696_000));
        assert_eq!(
            millis("2026-11-26T03:00:00+01:00"),
            millis("2026-11-26T02:00:00Z")
        );
        assert_eq!(millis("2026-11-26T02:00:00.5Z"), Some(1_795_658_400_500));
        for bad in [
            "",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "2026-11-26T02:00:00Q",
            "2026-11-26 02:00",
        ] {
            assert_eq!(millis(bad), None, "{bad}");
        }
        assert_eq!(
            seconds_between("2026-11-26T02:00:00Z", "2026-11-26T02:01:01.500Z"),
            Some(61.5)
        );
    }
}
