//! Blocks that repeat an earlier block of their launch
//! ([`Consumer::repeat_block`]): their class, their calls given again, and
//! what a consumer keeps per class.

use std::collections::VecDeque;

use super::{Consumer, Event, Place};
use crate::{Error, LaneSet};

/// A class of blocks that make the same calls on their consumer
/// ([`Consumer::repeat_block`]): unique in the process, so that a consumer
/// may key what it works out per class by it (a class the source drops and
/// records again gets a new one).
///
/// # Example
///
/// See [`Consumer::repeat_block`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockClass(u64);

// Made by the PTX interpreter only.
#[cfg_attr(not(feature = "ptx"), allow(dead_code))]
impl BlockClass {
    /// A class no other has been given.
    pub(crate) fn new() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        BlockClass(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// One call a block made on its consumer, as a [`Repeat`] gives it back.
/// Only the PTX interpreter's tapes (and tests) make them.
#[cfg_attr(not(any(feature = "ptx", test)), allow(dead_code))]
pub(crate) enum Recall<'a> {
    /// [`Consumer::place`].
    Place(&'a Place<'a>),
    /// [`Consumer::event`] (`unchanged` none) or
    /// [`Consumer::event_unchanged`].
    Event {
        warp: u32,
        event: &'a Event<'a>,
        unchanged: Option<LaneSet>,
    },
}

impl Recall<'_> {
    /// Makes the call on `consumer`.
    pub(crate) fn give<C: Consumer + ?Sized>(self, consumer: &mut C) -> Result<(), Error> {
        match self {
            Recall::Place(place) => {
                consumer.place(place);
                Ok(())
            }
            Recall::Event {
                warp,
                event,
                unchanged: None,
            } => consumer.event(warp, event),
            Recall::Event {
                warp,
                event,
                unchanged: Some(lanes),
            } => consumer.event_unchanged(warp, event, lanes),
        }
    }
}

/// What a source keeps of a block's calls, to give them again (`Sync`, so
/// that a [`Repeat`] is `Send` and `Sync`).
pub(crate) trait Recorded: Sync {
    /// Calls `f` with each call, in order, up to the first error.
    fn each(&self, f: &mut dyn FnMut(Recall<'_>) -> Result<(), Error>) -> Result<(), Error>;
}

/// A block that repeats an earlier one of its launch
/// ([`Consumer::repeat_block`]): its class, and its calls between
/// `begin_block` and `end_block`, given again on demand.
///
/// The class's first block was given to the same consumer earlier in the
/// same kernel, with these calls, or is this block: a source may record a
/// block before giving it, and give it as its class's first repeat. Only a
/// source makes one.
pub struct Repeat<'a> {
    class: BlockClass,
    calls: &'a dyn Recorded,
}

impl<'a> Repeat<'a> {
    #[cfg_attr(not(feature = "ptx"), allow(dead_code))]
    pub(crate) fn new(class: BlockClass, calls: &'a dyn Recorded) -> Self {
        Repeat { class, calls }
    }

    /// The block's class.
    pub const fn class(&self) -> BlockClass {
        self.class
    }

    /// Gives the block's calls to `consumer`, in order (`place`, `event`,
    /// `event_unchanged`; not `begin_block` nor `end_block`).
    ///
    /// # Errors
    ///
    /// The consumer's, at the call that returned it.
    pub fn replay<C: Consumer + ?Sized>(&self, consumer: &mut C) -> Result<(), Error> {
        self.calls.each(&mut |call| call.give(consumer))
    }
}

impl std::fmt::Debug for Repeat<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repeat")
            .field("class", &self.class)
            .finish_non_exhaustive()
    }
}

/// What a consumer works out per class of blocks
/// ([`Consumer::repeat_block`]), for at most [`PerClass::CLASSES`] classes
/// and about `bytes` bytes together: the oldest give way (a class met
/// again after is worked out again, which changes nothing but the time).
#[derive(Debug, Clone)]
pub(crate) struct PerClass<T> {
    kept: rustc_hash::FxHashMap<BlockClass, (T, usize)>,
    order: VecDeque<BlockClass>,
    bytes: usize,
    capacity: usize,
}

impl<T> PerClass<T> {
    /// Classes kept at most.
    pub(crate) const CLASSES: usize = 4096;

    /// None kept, room for `capacity` bytes.
    pub(crate) const fn new(capacity: usize) -> Self {
        PerClass {
            kept: std::collections::HashMap::with_hasher(rustc_hash::FxBuildHasher),
            order: VecDeque::new(),
            bytes: 0,
            capacity,
        }
    }

    pub(crate) fn get(&self, class: BlockClass) -> Option<&T> {
        self.kept.get(&class).map(|(t, _)| t)
    }

    /// Keeps `t`, of about `bytes` bytes, for `class` (not where it alone
    /// is more than the room).
    pub(crate) fn keep(&mut self, class: BlockClass, t: T, bytes: usize) {
        if bytes > self.capacity {
            return;
        }
        if let Some((_, old)) = self.kept.insert(class, (t, bytes)) {
            self.bytes -= old;
        } else {
            self.order.push_back(class);
        }
        self.bytes += bytes;
        while self.bytes > self.capacity || self.order.len() > Self::CLASSES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some((_, b)) = self.kept.remove(&old) {
                self.bytes -= b;
            }
        }
    }

    pub(crate) fn clear(&mut self) {
        self.kept.clear();
        self.order.clear();
        self.bytes = 0;
    }
}

/// What the per-class tests of the tally and the race checker share: a
/// block's calls written out, and the two ways a source gives a block.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Recall, Recorded, Repeat};
    use crate::kernel::{BlockInfo, Consumer, Event, Place};
    use crate::Error;

    /// A block's calls: each event by its warp, after a place or none.
    pub(crate) struct Calls(pub Vec<(u32, Option<Place<'static>>, Event<'static>)>);

    impl Recorded for Calls {
        fn each(&self, f: &mut dyn FnMut(Recall<'_>) -> Result<(), Error>) -> Result<(), Error> {
            for (warp, place, event) in &self.0 {
                if let Some(place) = place {
                    f(Recall::Place(place))?;
                }
                let (warp, unchanged) = (*warp, None);
                f(Recall::Event {
                    warp,
                    event,
                    unchanged,
                })?;
            }
            Ok(())
        }
    }

    /// Gives `block` to `by_calls` as its calls, and to `by_parts` as its
    /// calls too the first time its class is met (`met`, then set), as a
    /// repeat after.
    pub(crate) fn give<C: Consumer>(
        by_calls: &mut C,
        by_parts: &mut C,
        block: &BlockInfo,
        repeat: &Repeat<'_>,
        met: &mut bool,
    ) -> Result<(), Error> {
        by_calls.begin_block(block)?;
        repeat.replay(by_calls)?;
        by_calls.end_block()?;
        if *met {
            return by_parts.repeat_block(block, repeat);
        }
        *met = true;
        by_parts.begin_block(block)?;
        repeat.replay(by_parts)?;
        by_parts.end_block()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeat_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Repeat<'static>>();
        assert_send_sync::<BlockClass>();
    }

    #[test]
    fn the_oldest_classes_give_way_to_a_new_one() {
        let c: Vec<BlockClass> = (0..4).map(|_| BlockClass::new()).collect();
        let mut kept = PerClass::new(100);
        kept.keep(c[0], 'a', 40);
        kept.keep(c[1], 'b', 40);
        // 120 bytes: the first goes.
        kept.keep(c[2], 'c', 40);
        assert_eq!(
            c.iter().map(|&c| kept.get(c).copied()).collect::<Vec<_>>(),
            [None, Some('b'), Some('c'), None]
        );
        // Larger than the whole room: not kept, the others stay.
        kept.keep(c[3], 'd', 101);
        assert_eq!((kept.get(c[3]), kept.bytes), (None, 80));
        kept.clear();
        assert_eq!((kept.get(c[1]), kept.bytes), (None, 0));
    }
}
