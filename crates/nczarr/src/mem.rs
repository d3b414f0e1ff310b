//! Memory for buffers reused from one slab to the next.
//!
//! Fresh memory costs more than it seems: the system clears it page by page on first
//! touch (2 MiB at a time where the allocator asks for huge pages), which in a string
//! dump cost more than reading the strings. Buffers are therefore kept and reused
//! (slabs given back to their source, text buffers given back to the printer), and a
//! buffer kept is only of use when the next need fits in it.

/// Room to ask for when a reused buffer must be new and `n` is needed now: an eighth
/// more, as the next slabs' needs differ from this one's by a little (strings of other
/// lengths, text of other widths) and a buffer a little too small is given up, not
/// grown (growing copies what it held, though none of it is in use).
pub(crate) fn with_slack(n: usize) -> usize {
    n.saturating_add(n / 8)
}

/// A new buffer with room for `n` items and [`with_slack`]'s to spare, or for `n` alone
/// when memory does not allow the slack; `None` when it does not allow `n`.
pub(crate) fn fresh_with_slack<T>(n: usize) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve(with_slack(n))
        .or_else(|_| v.try_reserve(n))
        .ok()
        .map(|()| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slack_is_an_eighth_and_never_overflows() {
        assert_eq!(with_slack(0), 0);
        assert_eq!(with_slack(800), 900);
        assert_eq!(with_slack(usize::MAX), usize::MAX);
    }

    #[test]
    fn fresh_buffers_have_the_slack_or_are_none_past_memory() {
        assert!(fresh_with_slack::<u8>(800).is_some_and(|v| v.capacity() >= 900));
        assert!(fresh_with_slack::<u64>(usize::MAX / 4).is_none());
    }
}
