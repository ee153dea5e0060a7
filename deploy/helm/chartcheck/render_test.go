// Package chartcheck renders the Helm chart in ../policy-engine and decodes every object it renders
// strictly into the Kubernetes API types: a field the API does not know, or one in the wrong place,
// fails the test, as the API server would refuse it.
package chartcheck

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const chartDir = "../policy-engine"

// helmBinary is $HELM, else helm on PATH, else the one `go install` put in GOPATH/bin.
func helmBinary(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	if h, err := exec.LookPath("helm"); err == nil {
		return h
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env GOPATH: %v", err)
	}
	h := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "helm")
	if _, err := os.Stat(h); err != nil {
		t.Fatalf("helm is not installed (set HELM, or go install helm.sh/helm/v3/cmd/helm): %v", err)
	}
	return h
}

// render runs `helm template` with the given extra arguments and returns its documents, empty ones dropped.
func render(t *testing.T, args ...string) [][]byte {
	t.Helper()
	cmd := exec.Command(helmBinary(t), append([]string{"template", "pe", chartDir, "--namespace", "policy"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template %v: %v\n%s", args, err, stderr.String())
	}
	var docs [][]byte
	for _, doc := range bytes.Split(out, []byte("\n---")) {
		var probe map[string]any
		if err := yaml.Unmarshal(doc, &probe); err != nil {
			t.Fatalf("rendered YAML does not parse: %v\n%s", err, doc)
		}
		if len(probe) > 0 {
			docs = append(docs, doc)
		}
	}
	return docs
}

// strict decodes one document into out, refusing unknown fields and duplicate keys.
func strict(doc []byte, out any) error {
	return yaml.UnmarshalStrict(doc, out)
}

func kindOf(t *testing.T, doc []byte) string {
	t.Helper()
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		t.Fatalf("no apiVersion/kind: %v", err)
	}
	return head.APIVersion + " " + head.Kind
}

func mustDecode(t *testing.T, doc []byte, out any) {
	t.Helper()
	if err := strict(doc, out); err != nil {
		t.Fatalf("%s does not decode strictly: %v\n%s", kindOf(t, doc), err, doc)
	}
}

func fmtKey(kind, name string) string { return fmt.Sprintf("%s/%s", kind, name) }
