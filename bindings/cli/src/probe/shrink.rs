//! Delta debugging (Zeller's ddmin) over a list of actions: the shortest sublist that still
//! fails, as far as the time budget allows. `fails` replays a candidate against a fresh session.

use std::time::Instant;

/// Returns a sublist of `items` for which `fails` holds (the whole list if nothing smaller does
/// or the budget ran out first). `items` itself is assumed to fail.
pub fn ddmin<T: Clone>(
    mut items: Vec<T>,
    budget: Instant,
    mut fails: impl FnMut(&[T]) -> bool,
) -> Vec<T> {
    let mut n = 2usize;
    while items.len() >= 2 && Instant::now() < budget {
        let chunk = items.len().div_ceil(n);
        let mut reduced = false;
        // Try each complement (the list without one chunk), last chunk first: late steps are
        // more often the incidental ones.
        for i in (0..n).rev() {
            if Instant::now() >= budget {
                break;
            }
            let start = (i * chunk).min(items.len());
            let end = ((i + 1) * chunk).min(items.len());
            if start == end {
                continue;
            }
            let candidate: Vec<T> = items
                .iter()
                .enumerate()
                .filter(|(j, _)| *j < start || *j >= end)
                .map(|(_, x)| x.clone())
                .collect();
            if fails(&candidate) {
                items = candidate;
                n = (n - 1).max(2);
                reduced = true;
                break;
            }
        }
        if !reduced {
            if n >= items.len() {
                break;
            }
            n = (2 * n).min(items.len());
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn finds_the_two_steps_that_matter() {
        let items: Vec<u32> = (0..40).collect();
        let budget = Instant::now() + Duration::from_secs(5);
        let out = ddmin(items, budget, |c| c.contains(&7) && c.contains(&31));
        assert_eq!(out, vec![7, 31]);
    }

    #[test]
    fn order_is_kept() {
        let items: Vec<u32> = (0..10).collect();
        let budget = Instant::now() + Duration::from_secs(5);
        let out = ddmin(items, budget, |c| {
            let a = c.iter().position(|x| *x == 2);
            let b = c.iter().position(|x| *x == 8);
            matches!((a, b), (Some(a), Some(b)) if a < b)
        });
        assert_eq!(out, vec![2, 8]);
    }
}
