// Package deploy holds the engines that run the conformance plan (kreactor
// plan) sharded over machines, and their tests: a Kubernetes Indexed Job
// (k8s/job.yaml: JOB_COMPLETION_INDEX picks the shard, backoffLimitPerIndex
// retries one shard alone; k8s/merge-job.yaml writes the merged report), a
// sonobuoy plugin (sonobuoy/plugin.yaml, run.sh with the merge step) and the
// GitHub Actions workflow (.github/workflows/conformance.yml: a matrix over
// shards and kafka-clients releases, a last job merging the artifacts). The
// tests decode every manifest strictly into the k8s.io/api types, lint the
// workflow with actionlint, and run the Job's shards as local processes.
package deploy
