//! A set of well-mixed 64-bit keys (content hashes), cleared in constant
//! time: open addressing on the key's low bits with a stamp per slot, so a
//! search that keeps a few results does not pay for the table's size.

/// A set of hash keys; [`KeySet::clear`] costs nothing per slot.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeySet {
    /// Per slot: the stamp of the clearing it was filled after, and its key.
    slots: Vec<(u32, u64)>,
    /// The current stamp: slots with another are empty.
    stamp: u32,
    len: usize,
}

impl KeySet {
    /// Empties the set.
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Every stamp was used: forget them all.
            self.slots.iter_mut().for_each(|s| s.0 = 0);
            self.stamp = 1;
        }
    }

    /// Adds `key`; whether it was not in the set.
    #[inline]
    pub(crate) fn insert(&mut self, key: u64) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = key as usize & mask;
        loop {
            let (stamp, k) = self.slots[i];
            if stamp != self.stamp {
                self.slots[i] = (self.stamp, key);
                self.len += 1;
                return true;
            }
            if k == key {
                return false;
            }
            i = (i + 1) & mask;
        }
    }

    /// Doubles the table (at least 64 slots), keeping the keys.
    fn grow(&mut self) {
        let size = (self.slots.len() * 2).max(64);
        let stamp = self.stamp.max(1);
        let old = std::mem::replace(&mut self.slots, vec![(0, 0); size]);
        self.stamp = stamp;
        self.len = 0;
        for (s, k) in old {
            if s == stamp {
                self.insert(k);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::KeySet;

    #[test]
    fn keys_are_kept_until_cleared() {
        let mut set = KeySet::default();
        set.clear();
        for k in 0..1000u64 {
            assert!(set.insert(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        }
        for k in 0..1000u64 {
            assert!(!set.insert(k.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        }
        set.clear();
        assert!(set.insert(0));
        assert!(!set.insert(0));
        // Keys that share their low bits all find a slot.
        for k in 1..100u64 {
            assert!(set.insert(k << 40));
        }
        assert!(!set.insert(5 << 40));
    }
}
