//! The best hits of a search only: what a page of results needs. A ranked
//! search then re-reads only the files those hits come from, where
//! [`Memory::search_with`] re-reads the best [`crate::rank::MAX_HITS`] and
//! lifts every one of their windows to the caller.

use super::{Memory, indexed, mark_hit, parse_query};
use crate::error::{Error, ErrorKind, Result};
use crate::rank::SearchMode;
use crate::search::SearchResults;

impl Memory {
    /// [`Memory::search_with`], its best `limit` hits only, and how many
    /// files matched in all (at most [`crate::rank::MAX_HITS`], as
    /// [`Memory::search_with`] returns). The hits and the terms are exactly
    /// the first `limit` of [`Memory::search_with`]'s. One difference, as
    /// for [`Memory::search_rendered`]: a ranked hit's file that vanishes
    /// between ranking and re-reading still counts in the total.
    ///
    /// # Errors
    /// `invalid-arguments` for a `limit` of 0; otherwise as
    /// [`Memory::search_with`].
    pub fn search_top(
        &self,
        query: &str,
        mode: SearchMode,
        limit: usize,
    ) -> Result<(SearchResults, usize)> {
        if limit == 0 {
            return Err(Error::new(
                ErrorKind::InvalidArguments,
                "search limit is 0; it must be at least 1",
            ));
        }
        if mode == SearchMode::Literal {
            let mut results = self.search(query)?;
            let total = results.hits.len();
            results.hits.truncate(limit);
            return Ok((results, total));
        }
        let distinct = parse_query(query)?.terms().join(" ");
        let mut ordered = self.search_ranked_order(&distinct)?;
        let total = ordered.total();
        let mut reader = indexed::HitReader::default();
        let mut hits = Vec::new();
        while hits.len() < limit {
            let Some(hit) = ordered.next_hit(&mut |m| reader.read(self, m)) else {
                break;
            };
            hits.push(hit);
        }
        // Staleness marks for the shown hits only.
        let mut marks = self.stale_marks(hits.iter().map(|h| h.path.as_str()));
        for hit in &mut hits {
            mark_hit(&mut marks, hit);
        }
        Ok((
            SearchResults {
                terms: ordered.terms,
                hits,
            },
            total,
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::error::ErrorKind;
    use crate::rank::SearchMode;
    use crate::store::{Memory, Options, WriteMode, WriteTarget};

    #[test]
    fn the_top_hits_are_the_first_of_the_whole_search() {
        let dir = tempfile::tempdir().unwrap();
        let m = Memory::open(dir.path(), Options::new("/src/app")).unwrap();
        for i in 0..12 {
            let body = format!(
                "# deploy {i}\n\n{}",
                "deploy staging rollback\n".repeat(i + 1)
            );
            m.write(
                WriteTarget::Note,
                &body,
                WriteMode::Overwrite,
                Some(&format!("n{i}")),
            )
            .unwrap();
        }
        for mode in [SearchMode::Ranked, SearchMode::Literal] {
            let all = m.search_with("deploy rollback", mode).unwrap();
            assert_eq!(all.hits.len(), 12, "{mode:?}");
            let (top, total) = m.search_top("deploy rollback", mode, 5).unwrap();
            assert_eq!(total, 12, "{mode:?}");
            assert_eq!(top.terms, all.terms, "{mode:?}");
            assert_eq!(top.hits, all.hits[..5].to_vec(), "{mode:?}");
            let (more, _) = m.search_top("deploy rollback", mode, 500).unwrap();
            assert_eq!(more.hits, all.hits, "{mode:?}");
        }
        let err = m.search_top("deploy", SearchMode::Ranked, 0).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidArguments);
    }
}
