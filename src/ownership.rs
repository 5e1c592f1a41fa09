//! Ownership: who may read or cancel a call (area W of `docs/rules.md`).
//!
//! * (W-1) A job belongs to its workspace **and** to the member whose API key or Agent turn created
//!   it. Only that member can read or cancel it. Anyone else gets exactly what an unknown id gets
//!   (`404 not_found`, never 403), so the existence of a job is not leaked.
//! * (W-2) An MCP task is bound to the principal that created it; another principal gets exactly
//!   what an unknown id gets (`-32602`).
//! * (W-3) Ownership is decided before any list call is exposed: a list shows only the caller's
//!   own.

use serde::{Deserialize, Serialize};

/// Who created a job: a workspace and a member of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Owner<S = alloc::string::String> {
    /// The workspace the API key resolves to.
    pub workspace: S,
    /// The member whose key or Agent turn created the job.
    pub member: S,
}

/// What a caller may learn about a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// The caller owns it: answer normally.
    Owner,
    /// Not the caller's: answer exactly as for an unknown id.
    Hidden,
}

crate::tagged::unit_enum!(
    Access,
    "enum Access",
    [(Access::Owner, "owner"), (Access::Hidden, "hidden"),]
);

/// Whether `caller` may see a job owned by `owner`. Same workspace is not enough: the member
/// must match too.
///
/// ```
/// use longcall::ownership::{job_access, Access, Owner};
/// let alice = Owner { workspace: "w1", member: "alice" };
/// let bob = Owner { workspace: "w1", member: "bob" };
/// assert_eq!(job_access(&alice, &alice), Access::Owner);
/// assert_eq!(job_access(&alice, &bob), Access::Hidden);
/// ```
pub fn job_access<S: PartialEq>(owner: &Owner<S>, caller: &Owner<S>) -> Access {
    if owner == caller {
        Access::Owner
    } else {
        Access::Hidden
    }
}

/// Whether `caller` may see a task created by `principal`.
#[must_use]
pub fn task_access(principal: &str, caller: &str) -> Access {
    if principal == caller {
        Access::Owner
    } else {
        Access::Hidden
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_and_workspaces() {
        let o = |w, m| Owner {
            workspace: w,
            member: m,
        };
        assert_eq!(job_access(&o("w", "a"), &o("w", "a")), Access::Owner);
        assert_eq!(job_access(&o("w", "a"), &o("w", "b")), Access::Hidden);
        assert_eq!(job_access(&o("w", "a"), &o("v", "a")), Access::Hidden);
        assert_eq!(task_access("p", "p"), Access::Owner);
        assert_eq!(task_access("p", "q"), Access::Hidden);
    }
}
