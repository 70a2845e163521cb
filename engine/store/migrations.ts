/**
 * Numbered migrations of a project state file. Migration i (1-based) moves a
 * file from user_version i-1 to i. Never edit a released entry: append.
 */
export const migrations: readonly string[] = [
  `
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) STRICT;

  -- Every kept event: the raw log, from which everything can be rebuilt, and
  -- the de-duplication index (key = event id, or a content digest without
  -- one). When two bodies arrive under one key, the one with the smaller
  -- digest is kept, so the outcome does not depend on arrival order.
  CREATE TABLE event (
    key TEXT PRIMARY KEY,
    case_id TEXT NOT NULL,
    time INTEGER NOT NULL,
    digest TEXT NOT NULL,
    body TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX event_case ON event(case_id);

  -- Per-case summary; the case's events are rows of event. No time indexes:
  -- they would be rewritten on every append; the period lives in meta.
  CREATE TABLE case_state (
    case_id TEXT PRIMARY KEY,
    first_time INTEGER NOT NULL,
    last_time INTEGER NOT NULL,
    events INTEGER NOT NULL
  ) STRICT;

  -- The tally (see engine/tally.ts) as summable rows; rows at zero are deleted.
  CREATE TABLE counter (
    kind TEXT NOT NULL,
    k1 TEXT NOT NULL,
    k2 TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (kind, k1, k2, bucket)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX counter_zero ON counter(n) WHERE n = 0;

  -- The highest source position applied, per source and partition.
  CREATE TABLE position (
    source TEXT NOT NULL,
    partition INTEGER NOT NULL,
    offset INTEGER NOT NULL,
    PRIMARY KEY (source, partition)
  ) STRICT;

  CREATE TABLE dead_letter (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    location TEXT NOT NULL,
    reason TEXT NOT NULL,
    payload TEXT NOT NULL,
    received_at INTEGER NOT NULL
  ) STRICT;

  -- Objects and object-to-object relations of object-centric logs.
  CREATE TABLE object (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  CREATE TABLE object_relation (
    from_id TEXT NOT NULL,
    to_id TEXT NOT NULL,
    qualifier TEXT NOT NULL,
    PRIMARY KEY (from_id, to_id, qualifier)
  ) STRICT, WITHOUT ROWID;
  `,
  `
  -- The kept events become an append-only log: rows in arrival order under an
  -- integer id, with no secondary index. A time-ordered stream interleaves
  -- many open cases, so a table keyed by event key or indexed by case takes
  -- every insert somewhere else in its B-trees; appending does not. The
  -- de-duplication index is held in memory (engine/store/key-index.ts, built
  -- from this table when a writer opens it) and each case lists its rows.
  CREATE TABLE event_log (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL,
    case_id TEXT NOT NULL,
    time INTEGER NOT NULL,
    digest TEXT NOT NULL,
    body TEXT NOT NULL
  ) STRICT;
  INSERT INTO event_log (key, case_id, time, digest, body)
    SELECT key, case_id, time, digest, body FROM event ORDER BY case_id, time, key;
  CREATE INDEX migration_event_case ON event_log(case_id);

  -- Per case, the ids of its rows in the event log, comma-separated in no
  -- particular order (a JSON array without its brackets, so SQL can read it
  -- with json_each); its times and size are in its events. Without a rowid:
  -- one B-tree instead of a table and its key index.
  CREATE TABLE case_state_v2 (
    case_id TEXT PRIMARY KEY,
    event_ids TEXT NOT NULL
  ) STRICT, WITHOUT ROWID;
  INSERT INTO case_state_v2 (case_id, event_ids)
    SELECT case_id, group_concat(id, ',') FROM event_log GROUP BY case_id;
  DROP TABLE case_state;
  ALTER TABLE case_state_v2 RENAME TO case_state;

  -- Case changes of the last few batches, one row each (a JSON array of
  -- [case id, row ids, whole list?]); engine/store/case-table.ts applies them
  -- to case_state now and then.
  CREATE TABLE case_delta (
    id INTEGER PRIMARY KEY,
    entries INTEGER NOT NULL,
    changes TEXT NOT NULL
  ) STRICT;

  -- Counter changes of the last few batches, one row each (a JSON array of
  -- entries [kind, k1, k2, bucket, n]); the counted state is counter plus
  -- these. engine/store/counter-table.ts sums them into counter now and then.
  CREATE TABLE counter_delta (
    id INTEGER PRIMARY KEY,
    entries INTEGER NOT NULL,
    changes TEXT NOT NULL
  ) STRICT;

  DROP INDEX migration_event_case;
  DROP TABLE event;
  ALTER TABLE event_log RENAME TO event;
  `,
  `
  -- Dead letters keep the message's own bytes (bounded; see MAX_RAW_BYTES) so
  -- that a stream source can re-map them after its mapping is fixed, and are
  -- listed per source.
  ALTER TABLE dead_letter ADD COLUMN raw BLOB;
  CREATE INDEX dead_letter_source ON dead_letter (source, id);
  `,
  `
  -- Who holds which kept event, so that one source (a dataset) can be taken
  -- back. A batch appends consecutive rows to the event log, and one source's
  -- consecutive batches extend one range: source_rows lists, per range of row
  -- ids, the source that appended them. An event another source also sent (a
  -- duplicate, or a body that won under a known key) gets a row in
  -- event_holder. An event is held by its range's source and its holders, and
  -- retracting a source deletes the events no one else holds. Source '' is
  -- every batch without a position (HTTP ingestion) and every row kept before
  -- this migration: it is never retracted.
  CREATE TABLE source_rows (
    first_id INTEGER PRIMARY KEY,
    last_id INTEGER NOT NULL,
    source TEXT NOT NULL
  ) STRICT;
  CREATE INDEX source_rows_source ON source_rows (source);
  INSERT INTO source_rows (first_id, last_id, source)
    SELECT a, b, '' FROM (SELECT min(id) AS a, max(id) AS b FROM event) WHERE a IS NOT NULL;
  CREATE TABLE event_holder (
    source TEXT NOT NULL,
    id INTEGER NOT NULL,
    PRIMARY KEY (source, id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX event_holder_id ON event_holder (id);

  -- What each positioned source's batches did, summed: a dataset's own counts.
  CREATE TABLE source_stat (
    source TEXT PRIMARY KEY,
    accepted INTEGER NOT NULL,
    duplicates INTEGER NOT NULL,
    rejected INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  `
  -- Retention (engine/store/retention.ts): a case whose events were all
  -- older than the window had its rows in event deleted; its contribution
  -- stays in the counters, and its fold (CaseFold.toJSON: names, not counter
  -- ids) is kept here so that a later event continues it. first_time and
  -- last_time span the case's pruned events (the log's period reads them),
  -- last_time and last_key are the latest of them (case order: time, then
  -- key), events is how many they are. Its case_state row stays, with no
  -- rows listed.
  CREATE TABLE case_fold (
    case_id TEXT PRIMARY KEY,
    first_time INTEGER NOT NULL,
    last_time INTEGER NOT NULL,
    last_key TEXT NOT NULL,
    events INTEGER NOT NULL,
    fold TEXT NOT NULL
  ) STRICT;
  CREATE INDEX case_fold_first ON case_fold (first_time);
  CREATE INDEX case_fold_last ON case_fold (last_time);
  -- Dead letters are pruned by age and, past a count, oldest first.
  CREATE INDEX dead_letter_received ON dead_letter (received_at);
  `,
];
