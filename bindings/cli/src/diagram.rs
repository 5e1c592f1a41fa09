//! `longcall diagram`: mermaid `stateDiagram-v2` text generated from `lifecycle::table`.

use clap::ValueEnum;
use longcall::{lifecycle, Model};

/// The diagrams: one for MCP tasks (both revisions share the table), one for jobs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiagramModel {
    /// MCP tasks (2026 and 2025 share the table).
    Task,
    /// Sume jobs.
    Job,
}

impl DiagramModel {
    /// The marker name used in README.md (`<!-- diagram:task -->`).
    pub fn marker(self) -> &'static str {
        match self {
            DiagramModel::Task => "task",
            DiagramModel::Job => "job",
        }
    }

    fn model(self) -> Model {
        match self {
            DiagramModel::Task => Model::Task2025,
            DiagramModel::Job => Model::Job,
        }
    }
}

/// One model's diagram as a fenced mermaid block (what README.md embeds between its markers).
pub fn block(which: DiagramModel) -> String {
    let model = which.model();
    let mut s = String::from("```mermaid\nstateDiagram-v2\n");
    for seed in lifecycle::seeds(model) {
        s.push_str(&format!("    [*] --> {seed}\n"));
    }
    for (from, tos) in lifecycle::table(model) {
        for to in *tos {
            s.push_str(&format!("    {from} --> {to}\n"));
        }
    }
    for (from, tos) in lifecycle::table(model) {
        if tos.is_empty() {
            s.push_str(&format!("    {from} --> [*]\n"));
        }
    }
    s.push_str("```\n");
    s
}

/// All requested diagrams, each under a comment line naming it.
pub fn render(only: Option<DiagramModel>) -> String {
    let mut s = String::new();
    for which in [DiagramModel::Task, DiagramModel::Job] {
        if only.is_some_and(|o| o != which) {
            continue;
        }
        if !s.is_empty() {
            s.push('\n');
        }
        s.push_str(&format!("<!-- diagram:{} -->\n", which.marker()));
        s.push_str(&block(which));
        s.push_str(&format!("<!-- /diagram:{} -->\n", which.marker()));
    }
    s
}
