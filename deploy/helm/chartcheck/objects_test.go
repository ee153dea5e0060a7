package chartcheck

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// rendered holds every object of one rendering, decoded strictly, by kind and name.
type rendered struct {
	deployments     map[string]*appsv1.Deployment
	services        map[string]*corev1.Service
	pdbs            map[string]*policyv1.PodDisruptionBudget
	hpas            map[string]*autoscalingv2.HorizontalPodAutoscaler
	networkPolicies map[string]*networkingv1.NetworkPolicy
	configMaps      map[string]*corev1.ConfigMap
	secrets         map[string]*corev1.Secret
	scaledObjects   map[string]*ScaledObject
	serviceMonitors map[string]*ServiceMonitor
}

// decodeAll decodes every document into its type; a kind the chart is not expected to render fails.
func decodeAll(t *testing.T, docs [][]byte) rendered {
	t.Helper()
	r := rendered{
		deployments: map[string]*appsv1.Deployment{}, services: map[string]*corev1.Service{},
		pdbs: map[string]*policyv1.PodDisruptionBudget{}, hpas: map[string]*autoscalingv2.HorizontalPodAutoscaler{},
		networkPolicies: map[string]*networkingv1.NetworkPolicy{}, configMaps: map[string]*corev1.ConfigMap{},
		secrets: map[string]*corev1.Secret{}, scaledObjects: map[string]*ScaledObject{}, serviceMonitors: map[string]*ServiceMonitor{},
	}
	decoders := map[string]func([]byte){
		"apps/v1 Deployment":                      into(t, r.deployments),
		"v1 Service":                              into(t, r.services),
		"policy/v1 PodDisruptionBudget":           into(t, r.pdbs),
		"autoscaling/v2 HorizontalPodAutoscaler":  into(t, r.hpas),
		"networking.k8s.io/v1 NetworkPolicy":      into(t, r.networkPolicies),
		"v1 ConfigMap":                            into(t, r.configMaps),
		"v1 Secret":                               into(t, r.secrets),
		"keda.sh/v1alpha1 ScaledObject":           into(t, r.scaledObjects),
		"monitoring.coreos.com/v1 ServiceMonitor": into(t, r.serviceMonitors),
	}
	for _, doc := range docs {
		decode, ok := decoders[kindOf(t, doc)]
		if !ok {
			t.Fatalf("the chart rendered %s, which this test does not decode", kindOf(t, doc))
		}
		decode(doc)
	}
	return r
}

// into decodes a document strictly into a new T and files it under its name.
func into[T any, PT interface {
	*T
	metav1.Object
}](t *testing.T, byName map[string]PT) func([]byte) {
	return func(doc []byte) {
		t.Helper()
		obj := PT(new(T))
		mustDecode(t, doc, obj)
		byName[obj.GetName()] = obj
	}
}
