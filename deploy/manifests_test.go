package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// decodeStrict decodes a manifest into v, refusing unknown and duplicate
// fields (a misspelt field is otherwise dropped by the API server silently).
func decodeStrict(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func TestIndexedJob(t *testing.T) {
	var job batchv1.Job
	decodeStrict(t, "k8s/job.yaml", &job)
	if job.APIVersion != "batch/v1" || job.Kind != "Job" {
		t.Fatalf("apiVersion/kind %s/%s", job.APIVersion, job.Kind)
	}
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || *s.Completions < 2 {
		t.Fatalf("completions %v: want one per shard, at least 2", s.Completions)
	}
	if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex < 1 {
		t.Fatalf("backoffLimitPerIndex %v: a failed shard must be retried alone", s.BackoffLimitPerIndex)
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: backoffLimitPerIndex needs Never", s.Template.Spec.RestartPolicy)
	}
	c := onlyContainer(t, s.Template.Spec.Containers)
	cmd := strings.Join(append(c.Command, c.Args...), " ")
	// The shard count in the command is the Job's completions, and the
	// index comes from JOB_COMPLETION_INDEX (-shard N without i).
	if want := "kreactor plan -shard " + strconv.Itoa(int(*s.Completions)) + " "; !strings.Contains(cmd, want) {
		t.Errorf("command %q lacks %q", cmd, want)
	}
	if !strings.Contains(cmd, "-exec") || !strings.Contains(cmd, "$JOB_COMPLETION_INDEX") {
		t.Errorf("command %q: want -exec and the results under the completion index", cmd)
	}
	if c.ImagePullPolicy != corev1.PullNever {
		t.Errorf("imagePullPolicy %q: the image is built locally (make harness-image), no registry serves it", c.ImagePullPolicy)
	}
	mergeJob := batchv1.Job{}
	decodeStrict(t, "k8s/merge-job.yaml", &mergeJob)
	mc := onlyContainer(t, mergeJob.Spec.Template.Spec.Containers)
	if m := strings.Join(append(mc.Command, mc.Args...), " "); !strings.Contains(m, "kreactor report") || !strings.Contains(m, "/results/shard-*") {
		t.Errorf("merge command %q: want kreactor report over every shard's files", m)
	}
	var pvc corev1.PersistentVolumeClaim
	decodeStrict(t, "k8s/results-pvc.yaml", &pvc)
	claim := s.Template.Spec.Volumes[0].PersistentVolumeClaim
	if claim == nil || claim.ClaimName != pvc.Name || mergeJob.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != pvc.Name {
		t.Errorf("the shards and the merge must share the claim %q", pvc.Name)
	}
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("access modes %v: shards on several nodes need ReadWriteMany", pvc.Spec.AccessModes)
	}
}

// sonobuoyPlugin is a sonobuoy plugin definition: sonobuoy's own config
// keys (pkg/plugin/manifest.SonobuoyConfig) and the worker's container,
// decoded strictly into corev1.Container.
type sonobuoyPlugin struct {
	Config struct {
		Driver       string   `json:"driver"`
		PluginName   string   `json:"plugin-name"`
		ResultFormat string   `json:"result-format"`
		ResultFiles  []string `json:"result-files,omitempty"`
		SkipCleanup  bool     `json:"skip-cleanup,omitempty"`
		Description  string   `json:"description,omitempty"`
		SourceURL    string   `json:"source-url,omitempty"`
	} `json:"sonobuoy-config"`
	Spec    corev1.Container `json:"spec"`
	PodSpec *corev1.PodSpec  `json:"podSpec,omitempty"`
}

func TestSonobuoyPlugin(t *testing.T) {
	var p sonobuoyPlugin
	decodeStrict(t, "sonobuoy/plugin.yaml", &p)
	if p.Config.Driver != "Job" || p.Config.PluginName == "" {
		t.Errorf("driver %q, plugin-name %q", p.Config.Driver, p.Config.PluginName)
	}
	if !slices.Contains([]string{"junit", "manual", "raw", "gojson"}, p.Config.ResultFormat) {
		t.Errorf("result-format %q", p.Config.ResultFormat)
	}
	cmd := strings.Join(append(p.Spec.Command, p.Spec.Args...), " ")
	for _, want := range []string{"kreactor plan -shard 4 ", "-exec", `"$SONOBUOY_RESULTS_DIR/done"`} {
		if !strings.Contains(cmd, want) {
			t.Errorf("command %q lacks %q", cmd, want)
		}
	}
	var index string
	for _, e := range p.Spec.Env {
		if e.Name == "JOB_COMPLETION_INDEX" {
			index = e.Value
		}
	}
	if index != "0" {
		t.Errorf("JOB_COMPLETION_INDEX = %q: run.sh rewrites the index of shard 0", index)
	}
	if len(p.Spec.VolumeMounts) != 1 || p.Spec.VolumeMounts[0].MountPath != "/tmp/sonobuoy/results" {
		t.Errorf("volume mounts %v: sonobuoy collects /tmp/sonobuoy/results", p.Spec.VolumeMounts)
	}
}

func TestWorkflowLints(t *testing.T) {
	path := filepath.Join("..", ".github", "workflows", "conformance.yml")
	var out strings.Builder
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Fatalf("actionlint: %d problems\n%s", len(errs), out.String())
	}
	// The matrix covers shards and releases, and a last job merges.
	var wf struct {
		Jobs map[string]struct {
			Needs    any `json:"needs"`
			Strategy struct {
				Matrix map[string][]any `json:"matrix"`
			} `json:"strategy"`
		} `json:"jobs"`
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	m := wf.Jobs["shard"].Strategy.Matrix
	if len(m["shard"]) < 2 || len(m["release"]) < 2 {
		t.Errorf("matrix %v: want shards and releases", m)
	}
	if wf.Jobs["merge"].Needs != "shard" {
		t.Errorf("the merge job needs %v, want the shard jobs", wf.Jobs["merge"].Needs)
	}
}

func onlyContainer(t *testing.T, cs []corev1.Container) corev1.Container {
	t.Helper()
	if len(cs) != 1 {
		t.Fatalf("%d containers, want 1", len(cs))
	}
	return cs[0]
}
