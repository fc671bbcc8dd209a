//! Resources: Kubernetes objects written `type/name` (`deployment/payments-api`,
//! `svc/redis`, `deployment.apps/web`), Amazon resource names (`arn:aws:iam::...`), and
//! AWS resource ids (`i-0a1b2c3d4e5f67890`, `sg-0123abcd`).

use super::text::{find, run, word_at, word_before};
use super::{IdKind, Span};

/// Resource types that are not English words in lower case (or not in front of a `/`):
/// any name after them counts.
#[rustfmt::skip]
const K8S_TYPES: &[&str] = &[
    "clusterrole", "clusterrolebinding", "clusterrolebindings", "clusterroles", "configmap",
    "configmaps", "crd", "cronjob", "cronjobs", "customresourcedefinition", "daemonset",
    "daemonsets", "deploy", "deployment", "deployments", "endpoints", "endpointslice",
    "horizontalpodautoscaler", "hpa", "ingress", "ingresses", "networkpolicies", "networkpolicy",
    "pdb", "persistentvolumeclaim", "persistentvolumeclaims", "pod", "poddisruptionbudget", "pods",
    "pvc", "replicaset", "replicasets", "rolebinding", "rolebindings", "serviceaccount",
    "serviceaccounts", "statefulset", "statefulsets", "storageclass", "sts", "svc",
];

/// Resource types that are also words or units (`service/product`, `ns/op`): the name
/// after them must have a `-` or a digit (`node/ip-10-0-12-7`, `job/backfill-2024`).
#[rustfmt::skip]
const K8S_WORD_TYPES: &[&str] = &[
    "cm", "ds", "ep", "ing", "job", "jobs", "namespace", "namespaces", "no", "node", "nodes", "ns",
    "po", "pv", "role", "roles", "rs", "sa", "secret", "secrets", "service", "services",
];

/// Appends the `type/name` Kubernetes objects of `b`, anchored on `/`.
pub(super) fn scan_k8s(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while let Some(slash) = find(b, i, b'/') {
        i = slash + 1;
        let mut s = slash;
        while s > 0 && (b[s - 1].is_ascii_lowercase() || b[s - 1] == b'.') {
            s -= 1;
        }
        if s == slash || word_before(b, s) || (s > 0 && matches!(b[s - 1], b'/' | b'.' | b'-' | b'@' | b':'))
        {
            continue;
        }
        // `deployment.apps/web`: the type and its API group.
        let kind = &b[s..slash];
        let base = kind.split(|&c| c == b'.').next().unwrap_or(kind);
        let Ok(base) = std::str::from_utf8(base) else {
            continue;
        };
        let any_name = K8S_TYPES.binary_search(&base).is_ok();
        if !any_name && K8S_WORD_TYPES.binary_search(&base).is_err() {
            continue;
        }
        let Some(e) = k8s_name_end(b, slash + 1) else {
            continue;
        };
        let name = &b[slash + 1..e];
        if any_name || name.iter().any(|&c| c == b'-' || c.is_ascii_digit()) {
            out.push((s, e, IdKind::Resource));
            i = e;
        }
    }
}

/// The end of a DNS-label-like object name at `j` (lower case, digits, `-` and `.`, two
/// characters or more, not ending in punctuation), if nothing word-like or path-like
/// follows it.
fn k8s_name_end(b: &[u8], j: usize) -> Option<usize> {
    let mut e = run(b, j, |c| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'.'
    });
    while e > j && matches!(b[e - 1], b'-' | b'.') {
        e -= 1;
    }
    let ok = e >= j + 2
        && b[j].is_ascii_alphanumeric()
        && !word_at(b, e)
        && !matches!(b.get(e), Some(b'/' | b'@'));
    ok.then_some(e)
}

/// Appends the Amazon resource names of `b`: `arn:` and a partition, then everything up
/// to a space, a quote, a bracket or a comma.
pub(super) fn scan_arn(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while let Some(colon) = find(b, i, b':') {
        i = colon + 1;
        if colon < 3 || &b[colon - 3..colon] != b"arn" || word_before(b, colon - 3) {
            continue;
        }
        let rest = &b[colon + 1..];
        if !["aws:", "aws-cn:", "aws-us-gov:"]
            .iter()
            .any(|p| rest.starts_with(p.as_bytes()))
        {
            continue;
        }
        let e = run(b, colon + 1, |c| {
            c.is_ascii_alphanumeric()
                || matches!(c, b'_' | b'.' | b':' | b'/' | b'+' | b'=' | b'@' | b'*' | b'-')
        });
        out.push((colon - 3, e, IdKind::Resource));
        i = e;
    }
}

/// Prefixes of AWS resource ids (`i-`, `vol-`, `sg-`, ...), followed by 8 or 17 hex digits.
#[rustfmt::skip]
const AWS_PREFIXES: &[&str] = &[
    "acl", "ami", "eipalloc", "eni", "i", "igw", "lt", "nat", "pcx", "rtb", "sg", "snap", "subnet",
    "tgw", "vol", "vpc", "vpce",
];

/// `i-0a1b2c3d4e5f67890` at `s` (the start of the prefix): the end.
pub(super) fn aws_id_at(b: &[u8], s: usize) -> Option<usize> {
    let dash = s + b[s..].iter().position(|&c| c == b'-')?;
    let prefix = std::str::from_utf8(&b[s..dash]).ok()?;
    AWS_PREFIXES.binary_search(&prefix).ok()?;
    let e = run(b, dash + 1, |c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c));
    (matches!(e - dash - 1, 8 | 17) && !word_at(b, e) && b.get(e) != Some(&b'-')).then_some(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::testing::of;

    #[test]
    fn lists_are_sorted_for_binary_search() {
        for list in [K8S_TYPES, K8S_WORD_TYPES, AWS_PREFIXES] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn kubernetes_objects() {
        assert_eq!(
            of(
                IdKind::Resource,
                "restart deployment/payments-api, then svc/redis and deployment.apps/web; node/ip-10-0-12-7."
            ),
            [
                "deployment/payments-api",
                "svc/redis",
                "deployment.apps/web",
                "node/ip-10-0-12-7"
            ]
        );
        assert!(of(
            IdKind::Resource,
            "service/product secret/data ns/op and/or pods/x/log x-pod/abc node/a"
        )
        .is_empty());
    }

    #[test]
    fn arns_and_aws_ids() {
        assert_eq!(
            of(
                IdKind::Resource,
                "User: arn:aws:iam::123456789012:user/ci-deployer is not allowed on i-0a1b2c3d4e5f67890 (sg-0123abcd)."
            ),
            ["arn:aws:iam::123456789012:user/ci-deployer", "i-0a1b2c3d4e5f67890", "sg-0123abcd"]
        );
        assert!(of(IdKind::Resource, "barn:aws:x arn:gcp:x i-12345 sg-0123abcdz").is_empty());
    }
}
