//! Error codes that are whole words: errno names (`ECONNREFUSED`, `ENOENT`), signals
//! (`SIGTERM`), DNS answers (`NXDOMAIN`), Windows socket errors (`WSAECONNRESET`),
//! prefixed codes (`ERR_MODULE_NOT_FOUND`, `EAI_AGAIN`), and the reasons Kubernetes and
//! the cloud providers print (`CrashLoopBackOff`, `OOMKilled`, `AccessDenied`).
//!
//! Lists, not a shape: `E` and capitals is as often an English word in capitals (`ERROR`,
//! `EXACTLY`, `ENTER`) as an errno name, so only the names the C libraries, runtimes and
//! providers define count.

/// The errno names of Linux, the BSDs and Windows' C runtime.
#[rustfmt::skip]
const ERRNO: &[&str] = &[
    "E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EAFNOSUPPORT", "EAGAIN", "EALREADY", "EAUTH",
    "EBADE", "EBADF", "EBADFD", "EBADMSG", "EBADR", "EBADRQC", "EBADSLT", "EBUSY", "ECANCELED",
    "ECHILD", "ECHRNG", "ECOMM", "ECONNABORTED", "ECONNREFUSED", "ECONNRESET", "EDEADLK",
    "EDEADLOCK", "EDESTADDRREQ", "EDOM", "EDQUOT", "EEXIST", "EFAULT", "EFBIG", "EFTYPE",
    "EHOSTDOWN", "EHOSTUNREACH", "EHWPOISON", "EIDRM", "EILSEQ", "EINPROGRESS", "EINTR", "EINVAL",
    "EIO", "EISCONN", "EISDIR", "EISNAM", "EKEYEXPIRED", "EKEYREJECTED", "EKEYREVOKED", "ELIBACC",
    "ELIBBAD", "ELIBEXEC", "ELIBMAX", "ELIBSCN", "ELOOP", "EMEDIUMTYPE", "EMFILE", "EMLINK",
    "EMSGSIZE", "EMULTIHOP", "ENAMETOOLONG", "ENEEDAUTH", "ENETDOWN", "ENETRESET", "ENETUNREACH",
    "ENFILE", "ENOANO", "ENOATTR", "ENOBUFS", "ENODATA", "ENODEV", "ENOENT", "ENOEXEC", "ENOKEY",
    "ENOLCK", "ENOLINK", "ENOMEDIUM", "ENOMEM", "ENOMSG", "ENONET", "ENOPKG", "ENOPOLICY",
    "ENOPROTOOPT", "ENOSPC", "ENOSR", "ENOSTR", "ENOSYS", "ENOTBLK", "ENOTCONN", "ENOTDIR",
    "ENOTEMPTY", "ENOTFOUND", "ENOTRECOVERABLE", "ENOTSOCK", "ENOTSUP", "ENOTTY", "ENOTUNIQ",
    "ENXIO", "EOPNOTSUPP", "EOVERFLOW", "EOWNERDEAD", "EPERM", "EPFNOSUPPORT", "EPIPE", "EPROCLIM",
    "EPROTO", "EPROTONOSUPPORT", "EPROTOTYPE", "ERANGE", "EREMCHG", "EREMOTE", "EREMOTEIO",
    "ERESTART", "ERFKILL", "EROFS", "ESHUTDOWN", "ESOCKTNOSUPPORT", "ESPIPE", "ESRCH", "ESTALE",
    "ESTRPIPE", "ETIME", "ETIMEDOUT", "ETOOMANYREFS", "ETXTBSY", "EUCLEAN", "EUNATCH", "EUSERS",
    "EWOULDBLOCK", "EXDEV", "EXFULL",
];

/// Signals, as `kill -l` prints them with the `SIG` prefix.
#[rustfmt::skip]
const SIGNALS: &[&str] = &[
    "SIGABRT", "SIGALRM", "SIGBREAK", "SIGBUS", "SIGCHLD", "SIGCONT", "SIGEMT", "SIGFPE", "SIGHUP",
    "SIGILL", "SIGINFO", "SIGINT", "SIGIO", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR",
    "SIGQUIT", "SIGSEGV", "SIGSTKFLT", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP",
    "SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGWINCH", "SIGXCPU",
    "SIGXFSZ",
];

/// DNS response codes other than `NOERROR`.
#[rustfmt::skip]
const SERVER_CODES: &[&str] = &[
    "BADSIG", "NOTAUTH", "NOTIMP", "NOTZONE", "NXDOMAIN", "NXRRSET", "SERVFAIL", "YXDOMAIN",
];

/// Reasons and error codes printed by Kubernetes (container states, event reasons) and by
/// AWS, Google Cloud and Azure, other than `...Error` and `...Exception` names (those are
/// error names already).
#[rustfmt::skip]
const REASONS: &[&str] = &[
    "AccessDenied", "AuthorizationFailed", "BucketAlreadyExists", "BucketAlreadyOwnedByYou",
    "ContainerCreating", "CrashLoopBackOff", "CreateContainerConfigError", "DEADLINE_EXCEEDED",
    "DeadlineExceeded", "ErrImageNeverPull", "ErrImagePull", "ExpiredToken", "FAILED_PRECONDITION",
    "FailedAttachVolume", "FailedCreatePodSandBox", "FailedMount", "FailedPostStartHook",
    "FailedPreStopHook", "FailedScheduling", "ImagePullBackOff", "InsufficientInstanceCapacity",
    "InvalidAccessKeyId", "InvalidAuthenticationToken", "InvalidClientTokenId", "InvalidImageName",
    "InvalidParameterValue", "NoSuchBucket", "NoSuchKey", "NoSuchUpload", "NodeHasDiskPressure",
    "NodeHasMemoryPressure", "NodeNotReady", "OOMKilled", "PERMISSION_DENIED", "PodInitializing",
    "ProgressDeadlineExceeded", "QuotaExceeded", "RESOURCE_EXHAUSTED", "RequestLimitExceeded",
    "RequestTimeTooSkewed", "ResourceGroupNotFound", "RunContainerError", "SignatureDoesNotMatch",
    "SlowDown", "UnauthorizedOperation",
];

/// Whether the whole word `w` is an error code of one of the lists above, a Windows socket
/// error (`WSAECONNRESET`), or a prefixed code (`ERR_...`, `EAI_...`).
pub(super) fn is_error_code(w: &[u8]) -> bool {
    let Ok(w) = std::str::from_utf8(w) else {
        return false;
    };
    if w.len() < 3 || !w.is_ascii() {
        return false;
    }
    let listed = |list: &[&str], w: &str| list.binary_search(&w).is_ok();
    match w.as_bytes()[0] {
        b'E' => {
            listed(ERRNO, w)
                || listed(REASONS, w)
                || (["ERR_", "EAI_"].iter().any(|p| w.starts_with(p)) && is_upper_snake(w.as_bytes()))
        }
        b'S' => listed(SIGNALS, w) || listed(SERVER_CODES, w) || listed(REASONS, w),
        b'W' => w.strip_prefix("WSA").is_some_and(|e| listed(ERRNO, e)),
        _ => listed(SERVER_CODES, w) || listed(REASONS, w),
    }
}

/// `NODE_ENV`, `AWS_S3_BUCKET`: capitals and digits in two or more parts joined by single
/// underscores, starting with a letter. The shape of environment variables and constants.
pub(super) fn is_upper_snake(w: &[u8]) -> bool {
    w.first().is_some_and(u8::is_ascii_uppercase)
        && w.contains(&b'_')
        && w.split(|&c| c == b'_')
            .all(|p| !p.is_empty() && p.iter().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit()))
        && w.iter().filter(|c| c.is_ascii_uppercase()).count() >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_for_binary_search() {
        for list in [ERRNO, SIGNALS, SERVER_CODES, REASONS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn error_codes_are_listed_names() {
        for w in [
            "ECONNREFUSED",
            "ENOENT",
            "EACCES",
            "SIGTERM",
            "SIGSEGV",
            "NXDOMAIN",
            "WSAECONNREFUSED",
            "ERR_MODULE_NOT_FOUND",
            "EAI_AGAIN",
            "CrashLoopBackOff",
            "OOMKilled",
            "AccessDenied",
        ] {
            assert!(is_error_code(w.as_bytes()), "{w}");
        }
        for w in [
            "ERROR", "EXACTLY", "ENTER", "EDIT", "SIGNAL", "SIGMA", "ERR_", "EAI", "WSA", "Killed", "E",
        ] {
            assert!(!is_error_code(w.as_bytes()), "{w}");
        }
    }

    #[test]
    fn upper_snake() {
        for w in ["NODE_ENV", "AWS_S3_BUCKET", "DATABASE_URL", "USE_TZ"] {
            assert!(is_upper_snake(w.as_bytes()), "{w}");
        }
        for w in ["NODE", "_ENV", "NODE__ENV", "NODE_", "Node_Env", "A_1", "1_AB"] {
            assert!(!is_upper_snake(w.as_bytes()), "{w}");
        }
    }
}
