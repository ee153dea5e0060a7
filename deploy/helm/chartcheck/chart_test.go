package chartcheck

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

const (
	apiName    = "pe-policy-engine-api"
	workerName = "pe-policy-engine-worker"
	configName = "pe-policy-engine-config"
)

func container(t *testing.T, d *appsv1.Deployment) corev1.Container {
	t.Helper()
	if d == nil {
		t.Fatal("the Deployment was not rendered")
	}
	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("%s has %d containers, want 1", d.Name, len(d.Spec.Template.Spec.Containers))
	}
	return d.Spec.Template.Spec.Containers[0]
}

func portNamed(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	for _, p := range c.Ports {
		if p.Name == name {
			return p.ContainerPort
		}
	}
	t.Fatalf("container %s has no port named %s", c.Name, name)
	return 0
}

func selects(t *testing.T, sel *metav1.LabelSelector, d *appsv1.Deployment) bool {
	t.Helper()
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		t.Fatalf("selector: %v", err)
	}
	return !s.Empty() && s.Matches(labels.Set(d.Spec.Template.Labels))
}

// checkCommon asserts what holds for every rendering: roles, probes, the stop's grace, the
// Services, budgets and autoscalers pointing at the right pods.
func checkCommon(t *testing.T, r rendered) {
	t.Helper()
	api, worker := r.deployments[apiName], r.deployments[workerName]
	apiC, workerC := container(t, api), container(t, worker)

	if want := []string{"node", "dist/src/main.js", "--role", "api"}; !slices.Equal(apiC.Command, want) {
		t.Errorf("api command %v, want %v", apiC.Command, want)
	}
	if want := []string{"node", "dist/src/main.js", "--role", "worker"}; !slices.Equal(workerC.Command, want) {
		t.Errorf("worker command %v, want %v", workerC.Command, want)
	}

	cm := r.configMaps[configName]
	if cm == nil {
		t.Fatal("the ConfigMap was not rendered")
	}
	httpPort := portNamed(t, apiC, "http")
	if cm.Data["PORT"] != strconv.Itoa(int(httpPort)) {
		t.Errorf("PORT %q, container port %d", cm.Data["PORT"], httpPort)
	}
	if apiC.LivenessProbe == nil || apiC.LivenessProbe.HTTPGet == nil || apiC.LivenessProbe.HTTPGet.Path != "/healthz" || apiC.LivenessProbe.HTTPGet.Port.String() != "http" {
		t.Errorf("api liveness probe %+v, want GET /healthz on http", apiC.LivenessProbe)
	}
	if apiC.ReadinessProbe == nil || apiC.ReadinessProbe.HTTPGet == nil || apiC.ReadinessProbe.HTTPGet.Path != "/readyz" || apiC.ReadinessProbe.HTTPGet.Port.String() != "http" {
		t.Errorf("api readiness probe %+v, want GET /readyz on http", apiC.ReadinessProbe)
	}

	metricsPort := portNamed(t, workerC, "metrics")
	if i := slices.IndexFunc(workerC.Env, func(e corev1.EnvVar) bool { return e.Name == "METRICS_PORT" }); i < 0 || workerC.Env[i].Value != strconv.Itoa(int(metricsPort)) {
		t.Errorf("worker METRICS_PORT does not name its metrics port %d: %+v", metricsPort, workerC.Env)
	}

	// Three steps of a stop, each SHUTDOWN_GRACE_SECONDS + 5 s (docs/deployment.md).
	grace, err := strconv.Atoi(cm.Data["SHUTDOWN_GRACE_SECONDS"])
	if err != nil {
		t.Fatalf("SHUTDOWN_GRACE_SECONDS %q: %v", cm.Data["SHUTDOWN_GRACE_SECONDS"], err)
	}
	for _, d := range []*appsv1.Deployment{api, worker} {
		tg := d.Spec.Template.Spec.TerminationGracePeriodSeconds
		if tg == nil || *tg <= int64(3*(grace+5)) {
			t.Errorf("%s terminationGracePeriodSeconds %v, want above %d", d.Name, tg, 3*(grace+5))
		}
		c := container(t, d)
		if len(c.EnvFrom) != 2 || c.EnvFrom[0].ConfigMapRef == nil || c.EnvFrom[0].ConfigMapRef.Name != configName || c.EnvFrom[1].SecretRef == nil {
			t.Errorf("%s envFrom %+v, want the ConfigMap then a Secret", d.Name, c.EnvFrom)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s has no CPU request or memory limit", d.Name)
		}
	}

	for name, target := range map[string]struct {
		d    *appsv1.Deployment
		port int32
	}{apiName: {api, httpPort}, workerName: {worker, metricsPort}} {
		svc := r.services[name]
		if svc == nil || !selects(t, &metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, target.d) || svc.Spec.Ports[0].Port != target.port {
			t.Errorf("Service %s does not reach %s on %d: %+v", name, target.d.Name, target.port, svc)
		}
		pdb := r.pdbs[name]
		if pdb == nil || !selects(t, pdb.Spec.Selector, target.d) {
			t.Errorf("no PodDisruptionBudget selects %s", target.d.Name)
		}
		other := api
		if target.d == api {
			other = worker
		}
		if pdb != nil && selects(t, pdb.Spec.Selector, other) {
			t.Errorf("PodDisruptionBudget %s also selects %s", name, other.Name)
		}
	}

	hpa := r.hpas[apiName]
	if hpa == nil || hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != apiName ||
		len(hpa.Spec.Metrics) != 1 || hpa.Spec.Metrics[0].Resource == nil || hpa.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU {
		t.Errorf("the HPA does not scale the api Deployment on CPU: %+v", hpa)
	}
	if api.Spec.Replicas != nil {
		t.Errorf("the api Deployment sets replicas while the HPA owns them")
	}
}

func TestDefaultValues(t *testing.T) {
	r := decodeAll(t, render(t))
	checkCommon(t, r)
	if len(r.scaledObjects)+len(r.serviceMonitors)+len(r.networkPolicies) != 0 {
		t.Errorf("ScaledObject, ServiceMonitor and NetworkPolicy are off by default, got %d, %d, %d",
			len(r.scaledObjects), len(r.serviceMonitors), len(r.networkPolicies))
	}
	secret := r.secrets["pe-policy-engine-secrets"]
	if secret == nil || secret.StringData["MONGODB_URL"] == "" || secret.StringData["REDIS_URL"] == "" {
		t.Fatalf("the chart's Secret with MONGODB_URL and REDIS_URL was not rendered: %+v", secret)
	}
	if _, ok := secret.StringData["REDIS_CLUSTER_NODES"]; ok {
		t.Errorf("an empty REDIS_CLUSTER_NODES is left out, got it in the Secret")
	}
	if w := r.deployments[workerName]; w.Spec.Replicas == nil || *w.Spec.Replicas != 2 {
		t.Errorf("without KEDA the worker Deployment has its fixed replicas, got %v", w.Spec.Replicas)
	}
}

func TestProductionValues(t *testing.T) {
	r := decodeAll(t, render(t, "-f", chartDir+"/values-production.yaml"))
	checkCommon(t, r)

	if len(r.secrets) != 0 {
		t.Errorf("with existingSecret the chart makes no Secret, got %d", len(r.secrets))
	}
	for _, d := range r.deployments {
		if ref := container(t, d).EnvFrom[1].SecretRef; ref.Name != "policy-engine-secrets" {
			t.Errorf("%s reads Secret %s, want the existing policy-engine-secrets", d.Name, ref.Name)
		}
	}

	so := r.scaledObjects[workerName]
	if so == nil || so.Spec.ScaleTargetRef == nil || so.Spec.ScaleTargetRef.Name != workerName || so.Spec.ScaleTargetRef.Kind != "Deployment" {
		t.Fatalf("the ScaledObject does not target the worker Deployment: %+v", so)
	}
	if r.deployments[workerName].Spec.Replicas != nil {
		t.Errorf("the worker Deployment sets replicas while KEDA owns them")
	}
	var types []string
	for _, tr := range so.Spec.Triggers {
		types = append(types, tr.Type)
		if tr.Type == "prometheus" && (tr.Metadata["query"] == "" || tr.Metadata["threshold"] != "200" || tr.Metadata["serverAddress"] == "") {
			t.Errorf("prometheus trigger incomplete: %+v", tr.Metadata)
		}
	}
	if !slices.Equal(types, []string{"prometheus", "cpu"}) {
		t.Errorf("triggers %v, want prometheus (queue depth) and cpu", types)
	}

	sm := r.serviceMonitors["pe-policy-engine"]
	if sm == nil || len(sm.Spec.Endpoints) != 2 {
		t.Fatalf("the ServiceMonitor is missing or incomplete: %+v", sm)
	}
	// It selects Services: both, by their labels, on the ports they name.
	selector, err := metav1.LabelSelectorAsSelector(&sm.Spec.Selector)
	if err != nil {
		t.Fatalf("ServiceMonitor selector: %v", err)
	}
	for i, name := range []string{apiName, workerName} {
		svc := r.services[name]
		if !selector.Matches(labels.Set(svc.Labels)) || sm.Spec.Endpoints[i].Port != svc.Spec.Ports[0].Name || sm.Spec.Endpoints[i].Path != "/metrics" {
			t.Errorf("ServiceMonitor endpoint %+v does not scrape Service %s", sm.Spec.Endpoints[i], name)
		}
	}
	if sm != nil && sm.Labels["release"] != "prometheus" {
		t.Errorf("ServiceMonitor labels %v, want release=prometheus", sm.Labels)
	}
	if len(r.networkPolicies) != 1 {
		t.Errorf("want one NetworkPolicy, got %d", len(r.networkPolicies))
	}
}

// The grace period follows SHUTDOWN_GRACE_SECONDS: it is computed from the same value.
func TestGraceFollowsShutdownGrace(t *testing.T) {
	r := decodeAll(t, render(t, "--set", "shutdownGraceSeconds=30"))
	checkCommon(t, r)
	if got := *r.deployments[apiName].Spec.Template.Spec.TerminationGracePeriodSeconds; got != 3*(30+5)+5 {
		t.Errorf("terminationGracePeriodSeconds %d with a grace of 30 s, want %d", got, 3*(30+5)+5)
	}
}

// Strict decoding is what makes the checks above worth having: a misplaced field is refused.
func TestStrictDecodingRefusesMisplacedFields(t *testing.T) {
	docs := render(t)
	var d appsv1.Deployment
	for _, doc := range docs {
		if kindOf(t, doc) == "apps/v1 Deployment" {
			bad := append([]byte{}, doc...)
			bad = append(bad, []byte("\n  livenessProbe: {}\n")...) // under spec, not a container
			if err := strict(bad, &d); err == nil {
				t.Fatal("a livenessProbe directly under a Deployment's spec decoded without error")
			}
			return
		}
	}
	t.Fatal("no Deployment rendered")
}

// Without a MongoDB URL each pod would keep a SQLite file of its own: the chart refuses to render.
func TestMissingStoreURLIsRefused(t *testing.T) {
	out, err := exec.Command(helmBinary(t), "template", "pe", chartDir, "--set", "secrets.MONGODB_URL=").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "secrets.MONGODB_URL is required") {
		t.Errorf("helm template without MONGODB_URL: err %v, output %s", err, out)
	}
}

// KEDA's own type is as strict: a field KEDA does not have (the HPA's minReplicas for its
// minReplicaCount) fails the decoding.
func TestStrictDecodingRefusesAFieldKEDALacks(t *testing.T) {
	for _, doc := range render(t, "-f", chartDir+"/values-production.yaml") {
		if kindOf(t, doc) != "keda.sh/v1alpha1 ScaledObject" {
			continue
		}
		var so ScaledObject
		if err := strict(doc, &so); err != nil {
			t.Fatalf("the rendered ScaledObject does not decode: %v", err)
		}
		bad := append(append([]byte{}, doc...), []byte("\n  minReplicas: 1\n")...)
		if err := strict(bad, &so); err == nil {
			t.Fatal("a ScaledObject with spec.minReplicas decoded without error")
		}
		return
	}
	t.Fatal("no ScaledObject rendered with values-production.yaml")
}
