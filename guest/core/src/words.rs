//! What a message calls the actions it points to, for who reads it: a
//! model in a tool result gets tool names (`memory_restore`), a person at
//! the command line gets commands (`agent-memory restore v13`). Every
//! message of the core that sends its reader to another action names the
//! action here, so each rule has one place and the two vocabularies never
//! mix.

pub use agent_memory_vocab::Audience;

/// An action a message sends its reader to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act<'a> {
    /// List a file's recorded versions.
    History,
    /// Put back a recorded version (its id, when the message knows it).
    Restore(Option<&'a str>),
    /// Search memory.
    Search,
    /// List the memory files.
    List,
    /// Save reference material in a note.
    WriteNote,
    /// Replace a passage of a file.
    Edit,
    /// Take back the most recent change.
    Undo,
}

/// The name of `act` for `audience`: `memory_history`, or
/// `` `agent-memory history` `` for a person.
pub fn name(audience: Audience, act: Act<'_>) -> String {
    match audience {
        Audience::Model => match act {
            Act::History => "memory_history",
            Act::Restore(_) => "memory_restore",
            Act::Search => "memory_search",
            Act::List => "memory_read with source=list",
            Act::WriteNote => "memory_write target=note",
            Act::Edit => "memory_edit",
            Act::Undo => "memory_history and memory_restore",
        }
        .to_string(),
        Audience::Person => match act {
            Act::History => "`agent-memory history`".to_string(),
            Act::Restore(Some(version)) => format!("`agent-memory restore {version}`"),
            Act::Restore(None) => "`agent-memory restore VERSION`".to_string(),
            Act::Search => "`agent-memory search`".to_string(),
            Act::List => "`agent-memory list`".to_string(),
            Act::WriteNote => "`agent-memory write note --name NAME`".to_string(),
            Act::Edit => "`agent-memory edit`".to_string(),
            Act::Undo => "`agent-memory undo`".to_string(),
        },
    }
}

/// `act` as an instruction: `call memory_history`, or
/// ``run `agent-memory history` `` for a person.
pub fn invoke(audience: Audience, act: Act<'_>) -> String {
    let verb = match audience {
        Audience::Model => "call",
        Audience::Person => "run",
    };
    format!("{verb} {}", name(audience, act))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ACTS: [Act<'static>; 8] = [
        Act::History,
        Act::Restore(None),
        Act::Restore(Some("v13")),
        Act::Search,
        Act::List,
        Act::WriteNote,
        Act::Edit,
        Act::Undo,
    ];

    #[test]
    fn each_audience_gets_its_own_vocabulary() {
        for act in ACTS {
            let model = invoke(Audience::Model, act);
            let person = invoke(Audience::Person, act);
            assert!(
                model.contains("memory_") && !model.contains("agent-memory"),
                "{model}"
            );
            assert!(
                person.contains("`agent-memory ") && !person.contains("memory_"),
                "{person}"
            );
        }
        assert_eq!(
            name(Audience::Person, Act::Restore(Some("v13"))),
            "`agent-memory restore v13`"
        );
    }
}
