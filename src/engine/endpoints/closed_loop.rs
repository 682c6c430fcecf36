//! Request and reply's closed loop (`[traffic] reply_length`, `max_outstanding`): each
//! processor's open requests, and the suspension of a source at `max_outstanding` of them
//! (its pending arrival held, its clock stopped, until a reply arrives: BookSim's closed loop).
//! `Sources::draw_arrivals` suspends a source; a reply's delivery resumes it.

use super::Sources;

impl Sources {
    /// Counts each processor's open requests (messages are requests answered by replies), and
    /// suspends a source at `most` of them (0: never).
    pub fn close_loop(&mut self, most: u32) {
        let nodes = self.head.len();
        self.open = vec![0; nodes];
        self.parked = vec![false; nodes];
        self.most = most;
    }

    /// Processor `s` generated a request (with replies; nothing otherwise).
    pub(in crate::engine) fn request_opened(&mut self, s: u32) {
        if let Some(n) = self.open.get_mut(s as usize) {
            *n += 1;
        }
    }

    /// The reply to a request of processor `s` was delivered at the end of cycle `now`: a
    /// source suspended at `max_outstanding` resumes, its held arrival due the next cycle and
    /// its later ones as many cycles later as it was held.
    pub(in crate::engine) fn request_closed(&mut self, s: u32, now: u64) {
        let su = s as usize;
        self.open[su] -= 1;
        if self.parked[su] {
            self.parked[su] = false;
            let source = &mut self.gens[su];
            let resume = now + 1;
            source.next += (resume - source.next_cycle()) as f64;
            self.arrivals.insert(s, resume);
        }
    }

    /// A source is suspended at `max_outstanding` open requests.
    pub(in crate::engine) fn bounded(&self) -> bool {
        self.most > 0
    }

    /// Processor `s`'s open requests (0 without replies).
    pub(in crate::engine) fn open_requests(&self, s: u32) -> u32 {
        self.open.get(s as usize).copied().unwrap_or(0)
    }
}
