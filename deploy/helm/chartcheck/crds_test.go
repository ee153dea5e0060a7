package chartcheck

import (
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScaledObject mirrors the fields of KEDA's ScaledObject (keda.sh/v1alpha1, KEDA v2.21) the chart
// may set, with KEDA's JSON names and types. KEDA's own package (apis/keda/v1alpha1 of v2.21.0)
// does not build beside k8s.io/api v0.37.2: through client-go it imports
// k8s.io/api/scheduling/v1alpha2, which that version no longer has.
type ScaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ScaledObjectSpec `json:"spec"`
}

type ScaledObjectSpec struct {
	ScaleTargetRef  *ScaleTarget    `json:"scaleTargetRef"`
	PollingInterval *int32          `json:"pollingInterval,omitempty"`
	CooldownPeriod  *int32          `json:"cooldownPeriod,omitempty"`
	MinReplicaCount *int32          `json:"minReplicaCount,omitempty"`
	MaxReplicaCount *int32          `json:"maxReplicaCount,omitempty"`
	Triggers        []ScaleTriggers `json:"triggers"`
}

type ScaleTarget struct {
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

type ScaleTriggers struct {
	Type       string                         `json:"type"`
	Name       string                         `json:"name,omitempty"`
	MetricType autoscalingv2.MetricTargetType `json:"metricType,omitempty"`
	Metadata   map[string]string              `json:"metadata"`
}

// ServiceMonitor mirrors the fields of the Prometheus Operator's ServiceMonitor
// (monitoring.coreos.com/v1) the chart sets.
type ServiceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ServiceMonitorSpec `json:"spec"`
}

type ServiceMonitorSpec struct {
	Selector  metav1.LabelSelector `json:"selector"`
	Endpoints []Endpoint           `json:"endpoints"`
}

type Endpoint struct {
	Port     string `json:"port,omitempty"`
	Path     string `json:"path,omitempty"`
	Interval string `json:"interval,omitempty"`
}
