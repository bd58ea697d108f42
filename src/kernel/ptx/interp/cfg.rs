//! Immediate post-dominators of a function's instructions: where the lanes of
//! a divergent branch reconverge.
//!
//! The graph has one node per instruction and one exit node (index `n`, one
//! past the last instruction): a `bra` goes to its target (and, guarded, to the
//! next instruction too); `ret` and `exit` go to the exit node (guarded, to the
//! next instruction too); every other instruction goes to the next one.
//! Post-dominators are the dominators of the reversed graph from the exit
//! node, found by the iterative algorithm of Cooper, Harvey and Kennedy ("A
//! Simple, Fast Dominance Algorithm", 2001). An instruction from which the
//! exit cannot be reached (a loop that never ends) gets the exit node.

/// The successors of instruction `i` of `n`: up to two, `n` standing for the
/// exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// To the next instruction.
    Next,
    /// To `target` only (`bra`).
    Jump(u32),
    /// To `target` or the next instruction (`@p bra`).
    Branch(u32),
    /// To the exit only (`ret`, `exit`).
    Leave,
    /// To the exit or the next instruction (`@p ret`).
    MaybeLeave,
}

pub(crate) fn successors(flow: &[Flow], i: usize) -> [Option<u32>; 2] {
    let n = flow.len() as u32;
    let next = (i as u32 + 1).min(n);
    match flow[i] {
        Flow::Next => [Some(next), None],
        Flow::Jump(t) => [Some(t.min(n)), None],
        Flow::Branch(t) => [Some(t.min(n)), Some(next)],
        Flow::Leave => [Some(n), None],
        Flow::MaybeLeave => [Some(n), Some(next)],
    }
}

/// The immediate post-dominator of every instruction (`flow.len()` for the
/// exit).
pub(crate) fn post_dominators(flow: &[Flow]) -> Vec<u32> {
    let n = flow.len();
    let exit = n as u32;
    // Predecessors in the forward graph: successors in the reversed one.
    let mut preds: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
    for i in 0..n {
        for s in successors(flow, i).into_iter().flatten() {
            preds[s as usize].push(i as u32);
        }
    }
    // Postorder of the reversed graph from the exit, without recursion.
    const UNSEEN: u32 = u32::MAX;
    let mut order = vec![UNSEEN; n + 1];
    let mut postorder: Vec<u32> = Vec::with_capacity(n + 1);
    let mut visited = vec![false; n + 1];
    let mut stack: Vec<(u32, usize)> = vec![(exit, 0)];
    visited[n] = true;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&p) = preds[node as usize].get(*next) {
            *next += 1;
            if !visited[p as usize] {
                visited[p as usize] = true;
                stack.push((p, 0));
            }
        } else {
            order[node as usize] = postorder.len() as u32;
            postorder.push(node);
            stack.pop();
        }
    }
    let mut idom = vec![UNSEEN; n + 1];
    idom[n] = exit;
    let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
        while a != b {
            while order[a as usize] < order[b as usize] {
                a = idom[a as usize];
            }
            while order[b as usize] < order[a as usize] {
                b = idom[b as usize];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &node in postorder.iter().rev() {
            if node == exit {
                continue;
            }
            let mut new = UNSEEN;
            for s in successors(flow, node as usize).into_iter().flatten() {
                if idom[s as usize] == UNSEEN {
                    continue;
                }
                new = if new == UNSEEN {
                    s
                } else {
                    intersect(&idom, s, new)
                };
            }
            if new != UNSEEN && idom[node as usize] != new {
                idom[node as usize] = new;
                changed = true;
            }
        }
    }
    idom.truncate(n);
    for d in &mut idom {
        if *d == UNSEEN {
            *d = exit;
        }
    }
    idom
}

#[cfg(test)]
mod tests {
    use super::Flow::*;
    use super::*;

    #[test]
    fn if_then_else_reconverges_after_both_arms() {
        // 0: @p bra 3; 1: then; 2: bra 4; 3: else; 4: join; 5: ret
        let flow = [Branch(3), Next, Jump(4), Next, Next, Leave];
        let ipdom = post_dominators(&flow);
        assert_eq!(ipdom[0], 4);
        assert_eq!(ipdom[2], 4);
        assert_eq!(ipdom[4], 5);
        assert_eq!(ipdom[5], 6);
    }

    #[test]
    fn loop_exit_and_early_return() {
        // 0: body; 1: @p bra 0 (back edge); 2: @q ret; 3: tail; 4: ret
        let flow = [Next, Branch(0), MaybeLeave, Next, Leave];
        let ipdom = post_dominators(&flow);
        assert_eq!(ipdom[1], 2);
        // An early return reconverges only at the exit.
        assert_eq!(ipdom[2], 5);
    }

    #[test]
    fn a_loop_that_never_ends_gets_the_exit() {
        // 0: @p bra 2; 1: bra 1 (spins); 2: ret
        let flow = [Branch(2), Jump(1), Leave];
        let ipdom = post_dominators(&flow);
        assert_eq!(ipdom[1], 3);
        // Only the paths that reach the exit count.
        assert_eq!(ipdom[0], 2);
    }
}
