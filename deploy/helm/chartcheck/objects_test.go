package chartcheck

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
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
	for _, doc := range docs {
		switch kind := kindOf(t, doc); kind {
		case "apps/v1 Deployment":
			var o appsv1.Deployment
			mustDecode(t, doc, &o)
			r.deployments[o.Name] = &o
		case "v1 Service":
			var o corev1.Service
			mustDecode(t, doc, &o)
			r.services[o.Name] = &o
		case "policy/v1 PodDisruptionBudget":
			var o policyv1.PodDisruptionBudget
			mustDecode(t, doc, &o)
			r.pdbs[o.Name] = &o
		case "autoscaling/v2 HorizontalPodAutoscaler":
			var o autoscalingv2.HorizontalPodAutoscaler
			mustDecode(t, doc, &o)
			r.hpas[o.Name] = &o
		case "networking.k8s.io/v1 NetworkPolicy":
			var o networkingv1.NetworkPolicy
			mustDecode(t, doc, &o)
			r.networkPolicies[o.Name] = &o
		case "v1 ConfigMap":
			var o corev1.ConfigMap
			mustDecode(t, doc, &o)
			r.configMaps[o.Name] = &o
		case "v1 Secret":
			var o corev1.Secret
			mustDecode(t, doc, &o)
			r.secrets[o.Name] = &o
		case "keda.sh/v1alpha1 ScaledObject":
			var o ScaledObject
			mustDecode(t, doc, &o)
			r.scaledObjects[o.Name] = &o
		case "monitoring.coreos.com/v1 ServiceMonitor":
			var o ServiceMonitor
			mustDecode(t, doc, &o)
			r.serviceMonitors[o.Name] = &o
		default:
			t.Fatalf("the chart rendered %s, which this test does not decode", kind)
		}
	}
	return r
}
