//! Host names without a scheme or a port: `api.shopline.example.com`,
//! `registry.npmjs.org`, `kafka-2.kafka.svc.cluster.local`, and with the path after them
//! (`github.com/acme/widgets`); an image's tag after that joins it (`extract`).
//!
//! Lower case, two labels or more, and a last label that is a top-level domain people use
//! in text or an internal suffix (`.internal`, `.local`); so `Node.js`, `e.g.`, `os.path`,
//! `setup.py` and `deploy.sh` are not host names.

use super::text::{find, run, word_at, word_before};
use super::{IdKind, Span};

/// Top-level domains that end host names in text. Left out: those that are also file
/// extensions (`.sh`, `.pl`, `.rs`, `.py`, `.md`), English words (`.in`, `.it`, `.me`,
/// `.is`, `.to`, `.us`), or attributes in code (`np.int`, `user.name`, `logger.info`,
/// `flask.app`, `django.test`, `threading.local`: `.local` counts only in `.cluster.local`).
#[rustfmt::skip]
const TLDS: &[&str] = &[
    "ai", "arpa", "au", "biz", "br", "ca", "ch", "cloud", "cn", "co", "com", "corp",
    "de", "dev", "dk", "edu", "es", "eu", "example", "fi", "fr", "gg", "gov", "hk", "ie",
    "internal", "intranet", "invalid", "io", "jp", "kr", "lan", "localdomain", "localhost",
    "mil", "mx", "net", "nl", "nz", "online", "org", "ru", "se", "sg", "site", "svc", "tech",
    "tv", "tw", "uk", "xyz", "za",
];

/// First labels that make a two-label name an attribute in code (`self.co`, `this.app`).
const CODE_OBJECTS: &[&[u8]] = &[b"self", b"this", b"cls", b"ctx", b"req", b"res", b"obj"];

fn is_label_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

/// Appends the host names of `b`, anchored on `.`.
pub(super) fn scan_hosts(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while let Some(dot) = find(b, i, b'.') {
        let mut s = dot;
        while s > 0 && (is_label_byte(b[s - 1]) || b[s - 1] == b'.') {
            s -= 1;
        }
        let mut e = run(b, dot, |c| is_label_byte(c) || c == b'.');
        i = e.max(dot + 1);
        while e > s && b[e - 1] == b'.' {
            e -= 1;
        }
        // `_acme-challenge.example.com`, `_dmarc.example.com`: a service label.
        if s > 0 && b[s - 1] == b'_' && !word_before(b, s - 1) {
            s -= 1;
        }
        if s > 0 && (word_before(b, s) || matches!(b[s - 1], b'@' | b'/' | b'\\' | b'-' | b'$' | b'%')) {
            continue;
        }
        if word_at(b, e) || matches!(b.get(e), Some(b'@' | b'(')) || !is_host(&b[s..e]) {
            continue;
        }
        let end = path_end(b, e);
        out.push((s, end, IdKind::Host));
        i = end.max(i);
    }
}

/// Whether `name` is a lower-case host name ending in a known top-level domain.
fn is_host(name: &[u8]) -> bool {
    let labels: Vec<&[u8]> = name.split(|&c| c == b'.').collect();
    let ok_labels = labels.len() >= 2
        && labels.iter().all(|l| {
            let l = l.strip_prefix(b"_").unwrap_or(l);
            !l.is_empty()
                && l.len() <= 63
                && l[0] != b'-'
                && l[l.len() - 1] != b'-'
                && l.iter()
                    .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')
        });
    if !ok_labels {
        return false;
    }
    let tld = labels[labels.len() - 1];
    let known = std::str::from_utf8(tld).is_ok_and(|t| TLDS.binary_search(&t).is_ok())
        || (name.ends_with(b".cluster.local") && labels.len() >= 3);
    let www = labels[0] == b"www" && tld.len() >= 2 && tld.iter().all(u8::is_ascii_lowercase);
    (known || www)
        && labels[..labels.len() - 1]
            .iter()
            .any(|l| l.iter().any(u8::is_ascii_lowercase))
        && !(labels.len() == 2 && CODE_OBJECTS.contains(&labels[0]))
}

/// The end of the path after a host name ending at `e` (`/acme/widgets`), or `e`.
fn path_end(b: &[u8], e: usize) -> usize {
    let segment = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'~' | b'%' | b'+');
    let mut j = e;
    while b.get(j) == Some(&b'/') && b.get(j + 1).copied().is_some_and(segment) {
        j = run(b, j + 1, segment);
    }
    while j > e && b[j - 1] == b'.' {
        j -= 1;
    }
    j
}

#[cfg(test)]
mod tests {
    use super::TLDS;
    use crate::ids::testing::of;
    use crate::ids::IdKind;

    #[test]
    fn tlds_are_sorted_for_binary_search() {
        assert!(TLDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn host_names() {
        assert_eq!(
            of(
                IdKind::Host,
                "server: shop.example.org, ENOTFOUND registry.npmjs.org; ;api.internal.example.com. see github.com/acme/widgets and www.example.museum. redis.default.svc.cluster.local"
            ),
            [
                "shop.example.org",
                "registry.npmjs.org",
                "api.internal.example.com",
                "github.com/acme/widgets",
                "www.example.museum",
                "redis.default.svc.cluster.local"
            ]
        );
        // An image with its tag is one identifier.
        assert_eq!(
            of(
                IdKind::Host,
                "image ghcr.io/acme/payments-api:1.42.0 rolled; gcr.io/p/api:v3.14.2-rc.1."
            ),
            ["ghcr.io/acme/payments-api:1.42.0", "gcr.io/p/api:v3.14.2-rc.1"]
        );
        assert!(of(
            IdKind::Host,
            "Node.js e.g. i.e. os.path setup.py deploy.sh self.co np.int user.name Example.COM a@b.com x.com( 1.2.com.x_y logger.info py.path.local django.test"
        )
        .is_empty());
    }
}
