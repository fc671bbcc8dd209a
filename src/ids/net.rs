//! Network names: URLs, e-mail addresses and host:port pairs.
//!
//! Each scanner is anchored on the byte its kind cannot do without (`://`, `@`, `:` and a
//! digit) and works outwards from it, so text without one costs a single `memchr`-like pass.

use super::address::is_ipv6;
use super::text::{
    boundary, char_at, char_before, digits_then_boundary, find, is_space, run, word_at, word_before,
};
use super::{IdKind, Span};

// ---------------------------------------------------------------------------------
// url: \b(?:https?|ftp|wss?)://[^\s<>"'`)\]}]+ and, beyond the baseline, the other
// schemes of SCHEMES, `jdbc:` before one, and `git@host:owner/repo.git`.

/// Schemes that make `scheme://...` a URL. One that ends with another (`git+https`) comes
/// before it.
#[rustfmt::skip]
const SCHEMES: &[&str] = &[
    "git+https", "git+ssh", "mongodb+srv", "https", "http", "ftp", "wss", "ws", "postgresql",
    "postgres", "mysql", "mariadb", "rediss", "redis", "mongodb", "amqps", "amqp", "mqtt", "kafka",
    "nats", "grpcs", "grpc", "ldaps", "ldap", "smtps", "smtp", "imaps", "imap", "sftp", "ssh", "git",
    "svn", "s3", "gs", "file", "hdfs", "abfss", "abfs", "wasbs", "wasb", "clickhouse", "cassandra",
    "etcd", "consul", "docker", "oci", "unix", "tcp", "udp", "sqlite", "sqlserver", "mssql", "oracle",
    "neo4j", "bolt", "nfs", "smb", "rtsp", "rtmp",
];

pub(super) fn scan_url(b: &[u8], out: &mut Vec<Span>) {
    // Anchored on `://`: at most one of the schemes ends right before it.
    let mut i = 0;
    while let Some(colon) = find(b, i, b':') {
        i = colon + 1;
        if !b[colon..].starts_with(b"://") {
            if let Some((s, e)) = scp_at(b, colon) {
                out.push((s, e, IdKind::Url));
                i = e;
            }
            continue;
        }
        let Some(scheme) = SCHEMES
            .iter()
            // `_https://…_` is emphasis: the `_` is not part of a word before the scheme.
            .find(|s| {
                b[..colon].ends_with(s.as_bytes()) && {
                    let at = colon - s.len();
                    !word_before(b, at) || b[at - 1] == b'_'
                }
            })
        else {
            continue;
        };
        let mut s = colon - scheme.len();
        if b[..s].ends_with(b"jdbc:") && !word_before(b, s - 5) {
            s -= 5;
        }
        // `_https://…_`: emphasis; a URL's own `__` (`#object.__hash__`) stays otherwise.
        let underscored = s > 0 && b[s - 1] == b'_';
        if let Some(e) = url_end(b, colon + 3, underscored) {
            out.push((s, e, IdKind::Url));
            i = e;
        }
    }
}

/// `git@github.com:acme/widgets.git`, with the `:` at `colon`: a user `git` (or any user,
/// when the path ends in `.git`), a dotted host, and a path with a `/`.
fn scp_at(b: &[u8], colon: usize) -> Option<(usize, usize)> {
    let host = |c: u8| c.is_ascii_alphanumeric() || c == b'-' || c == b'.';
    let mut at = colon;
    while at > 0 && host(b[at - 1]) {
        at -= 1;
    }
    if at == 0 || b[at - 1] != b'@' || !b[at..colon].contains(&b'.') {
        return None;
    }
    let mut s = at - 1;
    while s > 0 && (b[s - 1].is_ascii_alphanumeric() || matches!(b[s - 1], b'_' | b'-' | b'.')) {
        s -= 1;
    }
    if s == at - 1 || word_before(b, s) {
        return None;
    }
    let path = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/' | b'~');
    let mut e = run(b, colon + 1, path);
    while e > colon + 1 && b[e - 1] == b'.' {
        e -= 1;
    }
    let p = &b[colon + 1..e];
    let ok = p.contains(&b'/')
        && !p[0].is_ascii_digit()
        && (&b[s..at - 1] == b"git" || p.ends_with(b".git"))
        && !word_at(b, e);
    ok.then_some((s, e))
}

/// `[^\s<>"'`)\]}]+` from `start`, without what closes it in prose: markdown emphasis
/// (`**url**`, `~~url~~`, and `_url_` when `underscored`), closing quotes and brackets
/// (`”`, `’`, `»`, `」`), `…`.
fn url_end(b: &[u8], start: usize, underscored: bool) -> Option<usize> {
    let mut j = start;
    while let Some(c) = char_at(b, j) {
        // A template's `${…}` (code building the URL) is not the URL's.
        if is_space(c)
            || matches!(c, '<' | '>' | '"' | '\'' | '`' | ')' | ']' | '}')
            || b[j..].starts_with(b"${")
        {
            break;
        }
        j += c.len_utf8();
    }
    while let Some(c) = char_before(b, j).filter(|_| j > start) {
        let closing = matches!(
            c,
            '*' | '~' | '”' | '’' | '»' | '›' | '」' | '』' | '】' | '）' | '…'
        );
        if !(closing || (c == '_' && underscored)) {
            break;
        }
        j -= c.len_utf8();
    }
    (j > start).then_some(j)
}

// ---------------------------------------------------------------------------------
// email: local@domain.tld, local part [A-Za-z0-9._%+-] starting with a letter or digit.

pub(super) fn scan_email(b: &[u8], out: &mut Vec<Span>) {
    let mut last_end = 0;
    let mut i = 0;
    while let Some(at) = b[i..].iter().position(|&c| c == b'@').map(|p| p + i) {
        i = at + 1;
        if let Some((s, e)) = email_at(b, at, last_end) {
            out.push((s, e, IdKind::Email));
            last_end = e;
            i = e;
        }
    }
}

fn email_at(b: &[u8], at: usize, not_before: usize) -> Option<(usize, usize)> {
    let is_local = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-');
    let mut s = at;
    while s > not_before && is_local(b[s - 1]) {
        s -= 1;
    }
    // What precedes the local part: a path (`/home/u@x`), an escape (`\n@pytest.fixture`
    // in JSON text) or a longer word mean this is not an address.
    if s > 0 && (word_before(b, s) || matches!(b[s - 1], b'/' | b'\\' | b'@' | b':')) {
        return None;
    }
    while s < at && !b[s].is_ascii_alphanumeric() {
        s += 1;
    }
    if s == at {
        return None;
    }
    // Domain: two or more labels, the last all letters and not a file extension.
    let mut j = at + 1;
    let mut labels = 0;
    let mut last = (0, 0);
    loop {
        let e = run(b, j, |c| c.is_ascii_alphanumeric() || c == b'-');
        if e == j || b[j] == b'-' || b[e - 1] == b'-' {
            break;
        }
        labels += 1;
        last = (j, e);
        if b.get(e) == Some(&b'.') && b.get(e + 1).is_some_and(|c| c.is_ascii_alphanumeric()) {
            j = e + 1;
        } else {
            break;
        }
    }
    let (ts, te) = last;
    let tld = &b[ts..te];
    let ok = labels >= 2
        && (2..=24).contains(&tld.len())
        && tld.iter().all(u8::is_ascii_alphabetic)
        && !is_file_ext(tld)
        && !word_at(b, te)
        && !matches!(b.get(te), Some(b'@' | b'-'));
    ok.then_some((s, te))
}

// ---------------------------------------------------------------------------------
// host_port:
// \b(?:localhost|(?:\d{1,3}\.){3}\d{1,3}|(?:[A-Za-z0-9-]+\.)+(?!(?:EXT):)[A-Za-z]{2,}):\d{2,5}\b

const FILE_EXT: &[&str] = &[
    "py", "pyc", "pyi", "js", "ts", "tsx", "jsx", "rs", "go", "c", "h", "cc", "cpp", "hpp", "java", "rb",
    "sh", "pl", "php", "txt", "md", "rst", "json", "yml", "yaml", "toml", "cfg", "ini", "html", "css", "xml",
    "csv", "log", "lock", "sql", "traj", "pot", "po", "png", "jpg", "svg",
];

pub(super) fn is_file_ext(s: &[u8]) -> bool {
    FILE_EXT.iter().any(|e| e.as_bytes() == s)
}

fn is_host_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'.'
}

/// The longest host name DNS allows; a longer run before a `:` is not a host, and
/// bounding it keeps a pathological run from being rescanned from each of its starts.
const MAX_HOST: usize = 253;

pub(super) fn scan_host_port(b: &[u8], out: &mut Vec<Span>) {
    // Anchored on `:` and a digit. Everything before the `:` is in [A-Za-z0-9.-], so the
    // match starts in the run of those that ends at the `:`.
    let mut from = 0;
    let mut i = 0;
    while let Some(colon) = find(b, i, b':') {
        i = colon + 1;
        if !b.get(colon + 1).is_some_and(u8::is_ascii_digit) {
            continue;
        }
        let mut s = colon;
        while s > from && is_host_byte(b[s - 1]) {
            s -= 1;
        }
        if colon - s > MAX_HOST {
            continue;
        }
        let found = (s..colon)
            .filter(|&start| boundary(b, start))
            .find_map(|start| host_port_at(b, start).map(|e| (start, e)))
            .or_else(|| undotted_host_port(b, s, colon).map(|e| (s, e)))
            .or_else(|| bracketed_host_port(b, colon));
        if let Some((start, e)) = found {
            out.push((start, e, IdKind::HostPort));
            from = e;
            i = e;
        }
    }
}

/// Host names without a dot that are servers wherever they appear with a port.
#[rustfmt::skip]
const SERVICE_HOSTS: &[&str] = &[
    "api", "app", "auth", "backend", "broker", "cache", "cassandra", "clickhouse", "collector",
    "consul", "database", "db", "elastic", "elasticsearch", "envoy", "es", "etcd", "frontend",
    "gateway", "gitlab", "grafana", "haproxy", "influxdb", "jaeger", "jenkins", "kafka", "keycloak",
    "kibana", "ldap", "mailhog", "mariadb", "memcached", "minio", "mongo", "mongodb", "mq", "mysql",
    "nats", "nginx", "ollama", "opensearch", "otel", "pg", "postgres", "postgresql", "prometheus",
    "proxy", "rabbitmq", "redis", "registry", "server", "smtp", "statsd", "traefik", "vault", "web",
    "worker", "zipkin", "zookeeper",
];

/// Ports servers listen on by default or by habit.
#[rustfmt::skip]
const COMMON_PORTS: &[u32] = &[
    80, 443, 1433, 1521, 2181, 2379, 3000, 3001, 3306, 4000, 4200, 4317, 4318, 5000, 5001, 5173,
    5432, 5601, 5672, 6379, 6443, 7000, 8000, 8001, 8080, 8081, 8443, 8500, 8888, 9000, 9090, 9092,
    9093, 9100, 9200, 9300, 11211, 15672, 27017,
];

/// `db-prod-1:5432`, `cache-3:6379`, `redis:6379`, `api:8080`: a host without a dot, in
/// lower case, from `s` to the `:`. It must look like a machine (a digit or a `-` in it), be
/// a service's usual name, or have a usual port, so that `frames:59` or `bytes:3602` in a
/// program's output is not one.
fn undotted_host_port(b: &[u8], s: usize, colon: usize) -> Option<usize> {
    let host = &b[s..colon];
    let shaped = host.len() >= 2
        && host.len() <= 63
        && host[0].is_ascii_lowercase()
        && host[host.len() - 1] != b'-'
        && host
            .iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-');
    // Not a part of an IPv6 address, a time or a path (`2001:db8:100::`, `/a/x-1:20`).
    if !shaped || word_before(b, s) || (s > 0 && matches!(b[s - 1], b'/' | b'@' | b'\\' | b':')) {
        return None;
    }
    let e = digits_then_boundary(b, colon + 1, 2, 5)?;
    if matches!(b.get(e), Some(b':' | b'.'))
        && b.get(e + 1)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b':')
    {
        return None;
    }
    let port: u32 = std::str::from_utf8(&b[colon + 1..e]).ok()?.parse().ok()?;
    let machine = host.iter().any(|&c| c == b'-' || c.is_ascii_digit());
    let known = std::str::from_utf8(host).is_ok_and(|h| SERVICE_HOSTS.binary_search(&h).is_ok());
    (port <= 65_535 && (machine || known || COMMON_PORTS.binary_search(&port).is_ok())).then_some(e)
}

/// `[2001:db8::1]:443`, `[::1]:8443`, with the `:` before the port at `colon`.
fn bracketed_host_port(b: &[u8], colon: usize) -> Option<(usize, usize)> {
    if colon == 0 || b[colon - 1] != b']' {
        return None;
    }
    let open = colon
        - 1
        - b[colon.saturating_sub(64)..colon - 1]
            .iter()
            .rev()
            .position(|&c| c == b'[')?
        - 1;
    let inner = &b[open + 1..colon - 1];
    let address = inner.split(|&c| c == b'%').next().unwrap_or(inner);
    if !(is_ipv6(address) || address == b"::") {
        return None;
    }
    let e = digits_then_boundary(b, colon + 1, 2, 5)?;
    Some((open, e))
}

fn host_port_at(b: &[u8], i: usize) -> Option<usize> {
    let port = |j: usize| {
        if b.get(j) == Some(&b':') {
            digits_then_boundary(b, j + 1, 2, 5)
        } else {
            None
        }
    };
    if b[i..].starts_with(b"localhost") {
        if let Some(e) = port(i + 9) {
            return Some(e);
        }
    }
    // IPv4: each digit run is 1..3 long and followed by `.` (three times) or `:`.
    let mut j = i;
    let mut ip = true;
    for k in 0..4 {
        let e = run(b, j, |c| c.is_ascii_digit());
        if !(1..=3).contains(&(e - j)) || (k < 3 && b.get(e) != Some(&b'.')) {
            ip = false;
            break;
        }
        j = if k < 3 { e + 1 } else { e };
    }
    if ip {
        if let Some(e) = port(j) {
            return Some(e);
        }
    }
    // Dotted host: labels then a letters-only top-level part that is not a file extension.
    let mut j = i;
    let mut labels = 0;
    loop {
        let e = run(b, j, |c| c.is_ascii_alphanumeric() || c == b'-');
        if e > j && b.get(e) == Some(&b'.') {
            labels += 1;
            j = e + 1;
        } else {
            break;
        }
    }
    let tld_end = run(b, j, |c| c.is_ascii_alphabetic());
    if labels == 0 || tld_end - j < 2 || is_file_ext(&b[j..tld_end]) {
        return None;
    }
    port(tld_end)
}

#[cfg(test)]
mod tests {
    use crate::ids::testing::{ids, of};
    use crate::ids::IdKind;

    #[test]
    fn urls() {
        assert_eq!(
            of(
                IdKind::Url,
                "see https://github.com/a/b/issues/12. and (http://x.io/p)"
            ),
            ["https://github.com/a/b/issues/12", "http://x.io/p"]
        );
        assert_eq!(
            of(IdKind::Url, "wss://h:8/x ftp://f/y"),
            ["wss://h:8/x", "ftp://f/y"]
        );
        assert!(of(IdKind::Url, "xhttp://a.b HTTP://a.b http:// ").is_empty());
        // A template literal's interpolation is code, not the URL.
        assert_eq!(
            of(
                IdKind::Url,
                "fetch(`https://api.internal:8443/v1/items/${url.searchParams.get(`id`)}`)"
            ),
            ["https://api.internal:8443/v1/items/"]
        );
        // Emphasis and closing quotes around a URL are prose, not part of it.
        assert_eq!(
            of(
                IdKind::Url,
                "**https://wiki.acme.io/db-failover** *https://x.io/4412* «https://x.io/o» “https://x.io/a” _https://docs.acme.io/restore_ ~~https://x.io/old~~ https://x.io/w… https://docs.python.org/3/reference/datamodel.html#object.__hash__"
            ),
            [
                "https://wiki.acme.io/db-failover",
                "https://x.io/4412",
                "https://x.io/o",
                "https://x.io/a",
                "https://docs.acme.io/restore",
                "https://x.io/old",
                "https://x.io/w",
                "https://docs.python.org/3/reference/datamodel.html#object.__hash__"
            ]
        );
        // Other schemes, `jdbc:`, and the scp form of git remotes.
        assert_eq!(
            of(
                IdKind::Url,
                "postgres://app:pw@db-1:5432/app s3://bucket/key git+https://h.io/r.git jdbc:postgresql://h/db git@github.com:acme/widgets.git"
            ),
            [
                "postgres://app:pw@db-1:5432/app",
                "s3://bucket/key",
                "git+https://h.io/r.git",
                "jdbc:postgresql://h/db",
                "git@github.com:acme/widgets.git"
            ]
        );
        assert!(of(IdKind::Url, "bob@host.io:22 me@x.com:8/tmp git@github.com:1/2").is_empty());
        // The path and host:port inside a URL count once, as the URL.
        assert_eq!(
            ids("http://web.chal.csaw.io:8000/cgi-bin/file.pl?/etc/passwd"),
            [(
                IdKind::Url,
                "http://web.chal.csaw.io:8000/cgi-bin/file.pl?/etc/passwd".into()
            )]
        );
    }

    #[test]
    fn host_ports() {
        assert_eq!(
            of(
                IdKind::HostPort,
                "nc crypto.chal.csaw.io:4242; localhost:8080 10.0.0.1:5432."
            ),
            ["crypto.chal.csaw.io:4242", "localhost:8080", "10.0.0.1:5432"]
        );
        // A file and a line number, not a host.
        assert!(of(IdKind::HostPort, "fields.py:1474 a.b.rs:20 x.json:12").is_empty());
        // Port of one digit or six.
        assert!(of(IdKind::HostPort, "a.com:8 a.com:123456 1.2.3:80").is_empty());
        // Without a dot: a machine name, a service's name, or a usual port.
        assert_eq!(
            of(
                IdKind::HostPort,
                "to db-prod-1:5432, cache-3:6379, redis:6379, server:8080, [::1]:8443 and [2001:db8::1]:443."
            ),
            [
                "db-prod-1:5432",
                "cache-3:6379",
                "redis:6379",
                "server:8080",
                "[::1]:8443",
                "[2001:db8::1]:443"
            ]
        );
        // A word and a number in program output, a time, a part of an IPv6 address or a path.
        assert!(of(
            IdKind::HostPort,
            "frames:59 bytes:3602 Step-1:30 T10:30:00 2001:db8:100::1 /srv/x-1:20 my_db-1:5432"
        )
        .is_empty());
    }

    #[test]
    fn emails() {
        assert_eq!(
            of(
                IdKind::Email,
                "mail omar.davis7857@example.com or sloria1@gmail.com."
            ),
            ["omar.davis7857@example.com", "sloria1@gmail.com"]
        );
        assert!(of(
            IdKind::Email,
            r"\n@pytest.fixture a@b user@host x@y.py @types/node"
        )
        .is_empty());
    }
}
