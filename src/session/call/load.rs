//! The start of an attempt: the meta loaded (or assumed from the cache's own last write),
//! the history read when the cache is behind, and the call's work once the history is in
//! the cache ([`ready`]).

use serde_json::Value;

use super::{Core, Done, Finishing, Kind, Loaded, Next, Phase, Reading, Work};
use crate::error::StoreOperation;
use crate::session::cached::{Around, Cached};
use crate::session::stored::{reads_schema, StoredMeta, META_SCHEMA};
use crate::Error;

/// A phase and how the step that led to it went.
pub(super) type Went<T> = (Phase, Result<T, Error>);

/// The stored meta (`None`: the store holds no such conversation), with the cache the call
/// started from. `face_len` is how many history items the caller's own copy holds (a cache
/// longer or shorter than it is not trusted). Gives how many cached items the call goes on
/// from (the caller's copy keeps as many: the rest belonged to another incarnation, or was
/// not trusted).
pub(super) fn loaded(
    core: &Core,
    cache: Option<Cached>,
    meta: Option<StoredMeta>,
    face_len: usize,
    assumed: bool,
) -> Went<usize> {
    if let Some(m) = &meta {
        let wrong = if !reads_schema(m.schema) {
            Some(format!(
                "the meta's schema is {}; this ctxfold reads 1 to {META_SCHEMA}",
                m.schema
            ))
        } else if m.id != core.id {
            Some(format!("returned the meta of {:?}", m.id))
        } else {
            None
        };
        if let Some(reason) = wrong {
            return (
                Phase::Load(cache),
                Err(core.store_error(StoreOperation::Load, reason)),
            );
        }
    }
    let Some(meta) = meta else {
        return not_stored(core, cache);
    };
    let trusted = cache.as_ref().is_some_and(|c| {
        c.epoch == meta.epoch && c.len() <= meta.length && c.len() == face_len && c.around.is_of(&meta)
    });
    let cache = cache.filter(|_| trusted);
    let kept = cache.as_ref().map_or(0, Cached::len);
    if matches!(core.kind, Kind::Undo) {
        // Undo changes the state only: no history needed.
        let phase = match meta.undo.clone() {
            None => Phase::Done {
                cache,
                done: Some(Done::Undone(None)),
            },
            Some(undo) => Phase::Finish(Box::new(Finishing::Undo { meta, undo, cache })),
        };
        return (phase, Ok(kept));
    }
    let cache = match cache {
        Some(c) if c.len() == meta.length => c,
        None if meta.length == 0 => {
            let format = core.format();
            match Cached::build(meta.epoch.clone(), Around::of(&meta), Vec::new(), format) {
                Ok(c) => c,
                Err(e) => return (Phase::Load(None), Err(e)),
            }
        }
        cache => {
            let reading = Reading { meta, cache, assumed };
            return (Phase::Read(Box::new(reading)), Ok(kept));
        }
    };
    let at = Loaded {
        clean: meta.length,
        meta: Some(meta),
        cache,
        dirty: false,
        assumed,
    };
    let (phase, went) = ready(core, at);
    (phase, went.map(|()| kept))
}

/// [`loaded`] of a conversation the store does not hold.
fn not_stored(core: &Core, cache: Option<Cached>) -> Went<usize> {
    let done = match core.kind {
        Kind::Compact { .. } | Kind::Prune | Kind::Overflowed { .. } => {
            let e = Error::UnknownConversation { id: core.id.clone() };
            return (Phase::Load(cache), Err(e));
        }
        Kind::Undo => Done::Undone(None),
        Kind::Status => Done::Status(None),
        Kind::Search { .. } => Done::Searched(Vec::new()),
        Kind::Recall { .. } => match super::super::recall::nothing(&core.ctx.options) {
            Ok(r) => Done::Recalled(r),
            Err(e) => return (Phase::Load(cache), Err(e)),
        },
        Kind::Ahead => Done::Ahead(Vec::new()),
        Kind::Prepare { .. } | Kind::Commit { .. } => {
            let fresh = Cached::build(
                core.fresh_epoch.clone(),
                Around::default(),
                Vec::new(),
                core.format(),
            );
            let cache = match fresh {
                Ok(c) => c,
                Err(e) => return (Phase::Load(cache), Err(e)),
            };
            let at = Loaded {
                meta: None,
                cache,
                clean: 0,
                dirty: false,
                assumed: false,
            };
            let (phase, went) = ready(core, at);
            return (phase, went.map(|()| 0));
        }
    };
    let phase = Phase::Done {
        cache,
        done: Some(done),
    };
    (phase, Ok(0))
}

/// Whether [`Step::Load`](super::Step::Load) may be answered from the cache's own last
/// write (see [`LoadStep::assume_cached`](super::LoadStep::assume_cached)): the meta it wrote.
pub(super) fn assumable(core: &Core, cache: Option<&Cached>, face_len: usize) -> Option<StoredMeta> {
    // Planning ahead writes nothing: a request planned on a history that moved on is only
    // one no turn asks for.
    let kinds = matches!(
        core.kind,
        Kind::Prepare { .. } | Kind::Commit { .. } | Kind::Ahead
    );
    if core.attempts > 0 || !kinds {
        return None;
    }
    cache.filter(|c| c.len() == face_len).and_then(|c| c.meta.clone())
}

/// History items from the index [`Step::Read`](super::Step::Read) named. More than the
/// meta's length (a write that landed since the load) are ignored; fewer are the store's error.
pub(super) fn read(core: &Core, reading: Reading, mut items: Vec<Value>) -> Went<()> {
    let Reading { meta, cache, assumed } = reading;
    let from = cache.as_ref().map_or(0, Cached::len);
    let want = meta.length - from;
    if items.len() < want {
        let reason = format!(
            "returned {} items from index {from}; the meta says the history holds {}",
            items.len(),
            meta.length
        );
        return (
            Phase::Load(cache),
            Err(core.store_error(StoreOperation::Messages, reason)),
        );
    }
    items.truncate(want);
    let format = core.format();
    let stored = |e: Error| Error::Store {
        operation: StoreOperation::Messages,
        id: meta.id.clone(),
        reason: format!("the stored history does not read as messages: {e}"),
    };
    let cache = match cache {
        Some(mut c) => match c.extend(items, format) {
            Ok(()) => c,
            // On error the cache is as it was.
            Err(e) => return (Phase::Load(Some(c)), Err(stored(e))),
        },
        None => match Cached::build(meta.epoch.clone(), Around::of(&meta), items, format) {
            Ok(c) => c,
            Err(e) => return (Phase::Load(None), Err(stored(e))),
        },
    };
    let at = Loaded {
        clean: meta.length,
        meta: Some(meta),
        cache,
        dirty: false,
        assumed,
    };
    ready(core, at)
}

/// The history is in the cache: do the call's work.
pub(super) fn ready(core: &Core, mut at: Loaded) -> Went<()> {
    let next = Work { core, at: &mut at }.ready();
    at.then(next)
}

impl Work<'_> {
    fn ready(&mut self) -> Result<Next, Error> {
        match &self.core.kind {
            Kind::Prepare { new, around } => {
                // Copies: another attempt may need them.
                let (new, around) = (new.clone(), around.clone());
                let format = self.core.format();
                let cache = &mut self.at.cache;
                let mut next = cache.around.clone();
                if next.update(around) {
                    cache.set_around(next, format)?;
                    self.at.dirty = true;
                }
                self.append(new, "newMessages")?;
                self.start(false, None)
            }
            Kind::Commit { reply, usage } => {
                let usage = usage.clone();
                self.append(reply.clone(), "reply")?;
                Ok(Next::FinishCommit(usage))
            }
            Kind::Compact { instructions } => self.start(true, instructions.clone()),
            Kind::Prune => self.start(false, None),
            Kind::Overflowed { refusal } => {
                let now = self.core.now.clone();
                if let Some(meta) = self.at.meta.as_mut() {
                    crate::session::usage::refused(meta, refusal, now)?;
                }
                self.start(false, None)
            }
            Kind::Status => Ok(Next::Done(Done::Status(self.status()?.map(Box::new)))),
            Kind::Search { query, limit } => {
                let meta = self.at.meta.as_ref();
                let hits = super::super::search::search(&mut self.at.cache, meta, query, *limit);
                Ok(Next::Done(Done::Searched(hits)))
            }
            Kind::Recall { query, limit } => {
                let (setup, ..) = self.setup(false, None)?;
                let meta = self.at.meta.as_ref();
                let (cache, budget) = (&mut self.at.cache, setup.config.recall_max_tokens);
                let r =
                    super::super::recall::recall(cache, meta, query, *limit, &setup.counting.counter, budget);
                Ok(Next::Done(Done::Recalled(r)))
            }
            Kind::Ahead => self.plan_ahead(),
            // An undo never loads its history (see `loaded`).
            Kind::Undo => Ok(Next::Done(Done::Undone(None))),
        }
    }
}
