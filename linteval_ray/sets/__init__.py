"""A set of models in one run: a base model, SFT variants and every checkpoint of a fine-tuning run,
evaluated in one Ray job, with one leaderboard.

    spec.py         the set's models (``models:``, ``--model NAME=...``, checkpoints), each resolved into
                    the config of its own run folder
    checkpoints.py  a checkpoint glob (local, s3://, gs://) as models, named and sorted by step
    feed.py         how each model's rows reach the one validation stream (a Ray actor queue as a source)
    evaluate.py     the one warm validation pool judging every model's rows into that model's run folder
    run.py          the driver: rounds, per-model intake, finishing each model, resume, --follow
    leaderboard.py  leaderboard.json/.md/.html and the learning curve
    folder.py       a set folder's file names and set.json

Why this shape. A single ``run`` is one Ray Data execution (read → admit → batches → generate →
validate → store): its validation actors live as long as the execution. Ray Data 2.60 gives no
way to keep an actor pool across executions, and putting every model in one execution does not
sequence them: a union's branches all start at once (every branch's actor pools are created at
the start; ``UnionOperator`` only interleaves their outputs), so ten checkpoints' engines would
all ask for the GPUs together. An actor pool operator releases its actors only when its inputs
are done (the autoscaler's "consumed all inputs") or at the executor's shutdown. So a set runs
two kinds of executions at once: ONE validation execution for the whole set, whose source is a
feed the driver fills, and one short intake execution per model, one after the other, each
ending (and so releasing its engines) before the next starts. Model i+1's engines load while
model i's last rows are still judged; the validation pool, its linters, sandbox, PCHs and its
actors' content cache stay warm from the first model to the last, and each problem's tools,
tests and reference answers are built once (the content cache; within a round two models' rows
of one problem judged at the same moment on two actors can still both build its tests).

A model's run folder, ``OUTPUT/models/<name>/``, is what ``linteval-ray run`` of that model alone
writes: the same manifest and fingerprint, shards, results.parquet, metrics.json and report, so
``run`` (resume), ``reduce``, ``report`` and ``compare`` work on it as on any run.
"""
