package chartcheck

import (
	kedav1alpha1 "github.com/kedacore/keda/v2/apis/keda/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ScaledObject is KEDA's own type (keda.sh/v1alpha1, KEDA v2.21), so a field KEDA does not know
// fails the strict decoding. (Its package builds with client-go v0.36, hence k8s.io/api v0.36 here.)
type ScaledObject = kedav1alpha1.ScaledObject

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
