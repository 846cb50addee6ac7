// Manifests in the shapes of Kueue's documentation examples for the
// integrated kinds (site/static/examples: jobs/, appwrapper/ at the reference
// commit), written for these tests: each must load unchanged, with the pod
// sets Kueue gives it. (Examples that use metadata.generateName are written
// with a name here; generated names are the loader's business.)
#include <string>
#include <string_view>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kueuesim/scenario/default_durations.h"
#include "kueuesim/scenario/scenario.h"
#include "testing/scenario_fixtures.h"

namespace kueuesim::scenario {
namespace {

using ::testing::ElementsAreArray;
using ::testing::IsEmpty;

struct Example {
  const char* name;  // the upstream example it mirrors
  const char* yaml;
  std::vector<std::string> pod_sets;  // "name:count" in order
};

const std::vector<Example>& Examples() {
  static const std::vector<Example> examples = {
      {"jobs/sample-jobset.yaml", R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: sleep-job
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  network:
    enableDNSHostnames: false
    subdomain: some-subdomain
  replicatedJobs:
    - name: workers
      replicas: 1
      template:
        spec:
          parallelism: 1
          completions: 1
          backoffLimit: 0
          template:
            spec:
              containers:
                - name: sleep
                  image: busybox
                  resources:
                    requests:
                      cpu: 1
                      memory: "200Mi"
                  command: [sleep]
                  args: [100s]
    - name: driver
      template:
        spec:
          parallelism: 1
          completions: 1
          backoffLimit: 0
          template:
            spec:
              containers:
                - name: sleep
                  image: busybox
                  resources:
                    requests:
                      cpu: 2
                      memory: "200Mi"
)",
       {"workers:1", "driver:1"}},
      {"jobs/sample-jobset-tas-combined.yaml", R"(apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata:
  name: jobset-tas-combined
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  replicatedJobs:
    - name: workers
      replicas: 1
      template:
        spec:
          parallelism: 8
          completions: 8
          template:
            metadata:
              annotations:
                kueue.x-k8s.io/podset-required-topology: "cloud.provider.com/topology-block"
                kueue.x-k8s.io/podset-slice-required-topology: "cloud.provider.com/topology-rack"
                kueue.x-k8s.io/podset-slice-size: "4"
            spec:
              containers:
                - name: sleep
                  image: busybox
                  resources:
                    requests: {cpu: 1, memory: "200Mi"}
)",
       {"workers:8"}},
      {"jobs/sample-pytorchjob.yaml", R"(apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: pytorch-simple
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: example/pytorch-mnist
              imagePullPolicy: Always
              resources:
                requests: {cpu: 1, memory: "200Mi"}
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: example/pytorch-mnist
              resources:
                requests: {cpu: 1, memory: "200Mi"}
)",
       {"master:1", "worker:1"}},
      {"jobs/sample-tfjob.yaml", R"(apiVersion: kubeflow.org/v1
kind: TFJob
metadata:
  name: tensorflow-dist-mnist
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  tfReplicaSpecs:
    PS:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: tensorflow
              image: example/tf-dist-mnist
              resources:
                requests: {cpu: 1, memory: "200Mi"}
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: tensorflow
              image: example/tf-dist-mnist
              resources:
                requests: {cpu: 1, memory: "200Mi"}
)",
       {"ps:1", "worker:2"}},
      {"jobs/sample-xgboostjob.yaml", R"(apiVersion: kubeflow.org/v1
kind: XGBoostJob
metadata:
  name: xgboost-dist-iris-test-train
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  xgbReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        spec:
          containers:
            - name: xgboost
              image: example/xgboost-dist-iris
              resources:
                requests: {cpu: 0.5, memory: "200Mi"}
    Worker:
      replicas: 2
      restartPolicy: ExitCode
      template:
        spec:
          containers:
            - name: xgboost
              image: example/xgboost-dist-iris
              resources:
                requests: {cpu: 0.5, memory: "200Mi"}
)",
       {"master:1", "worker:2"}},
      {"jobs/sample-paddlejob.yaml", R"(apiVersion: kubeflow.org/v1
kind: PaddleJob
metadata:
  name: paddle-simple-cpu
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  paddleReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: paddle
              image: example/paddle
              resources:
                requests: {cpu: 1, memory: "200Mi"}
)",
       {"worker:2"}},
      {"jobs/sample-jaxjob.yaml", R"(apiVersion: kubeflow.org/v1
kind: JAXJob
metadata:
  name: jax-simple
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  jaxReplicaSpecs:
    Worker:
      replicas: 2
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: jax
              image: example/jax
              resources:
                requests: {cpu: 1, memory: "200Mi"}
)",
       {"worker:2"}},
      {"jobs/sample-mpijob.yaml", R"(apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: pi
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
    ttlSecondsAfterFinished: 60
  sshAuthMountPath: /home/mpiuser/.ssh
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers:
          - image: example/mpi-pi
            name: mpi-launcher
            resources:
              limits: {cpu: 1, memory: 1Gi}
    Worker:
      replicas: 2
      template:
        spec:
          containers:
          - image: example/mpi-pi
            name: mpi-worker
            resources:
              limits: {cpu: 1, memory: 1Gi}
)",
       {"launcher:1", "worker:2"}},
      {"jobs/ray-job-sample.yaml", R"(apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: rayjob-sample
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  shutdownAfterJobFinishes: true
  entrypoint: python /home/ray/samples/sample_code.py
  runtimeEnvYAML: |
    pip:
      - requests==2.26.0
  rayClusterSpec:
    rayVersion: '2.9.0'
    headGroupSpec:
      rayStartParams:
        dashboard-host: '0.0.0.0'
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.9.0
              resources:
                limits: {cpu: "1"}
                requests: {cpu: "1"}
    workerGroupSpecs:
      - replicas: 1
        minReplicas: 1
        maxReplicas: 5
        groupName: small-group
        rayStartParams: {}
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.9.0
                resources:
                  limits: {cpu: "1"}
                  requests: {cpu: "1"}
)",
       {"head:1", "small-group:1", "submitter:1"}},
      {"jobs/ray-job-autoscaling-sample.yaml", R"(apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: rayjob-autoscaling-sample
  labels:
    kueue.x-k8s.io/queue-name: user-queue
  annotations:
    kueue.x-k8s.io/elastic-job: "true"
spec:
  shutdownAfterJobFinishes: true
  entrypoint: python /home/ray/samples/sample_code.py
  rayClusterSpec:
    rayVersion: '2.9.0'
    autoscalerOptions:
      idleTimeoutSeconds: 30
      upscalingMode: Aggressive
    enableInTreeAutoscaling: true
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.9.0
              resources: {limits: {cpu: "1"}, requests: {cpu: "1"}}
    workerGroupSpecs:
      - replicas: 1
        minReplicas: 1
        maxReplicas: 5
        groupName: small-group
        rayStartParams: {}
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.9.0
                resources: {limits: {cpu: "1"}, requests: {cpu: "1"}}
)",
       {"head:1", "small-group:1", "submitter:1"}},
      {"jobs/ray-cluster-sample.yaml", R"(apiVersion: ray.io/v1
kind: RayCluster
metadata:
  labels:
    kueue.x-k8s.io/queue-name: user-queue
    controller-tools.k8s.io: "1.0"
  name: raycluster-complete
spec:
  rayVersion: '2.9.0'
  headGroupSpec:
    serviceType: ClusterIP
    rayStartParams:
      dashboard-host: '0.0.0.0'
    template:
      metadata:
        labels: {}
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.9.0
            resources:
              limits: {cpu: "1", memory: "2G"}
              requests: {cpu: "1", memory: "2G"}
  workerGroupSpecs:
    - replicas: 1
      minReplicas: 1
      maxReplicas: 10
      groupName: small-group
      rayStartParams: {}
      template:
        spec:
          containers:
            - name: ray-worker
              image: rayproject/ray:2.9.0
              resources:
                limits: {cpu: "1", memory: "1G"}
                requests: {cpu: "1", memory: "1G"}
)",
       {"head:1", "small-group:1"}},
      {"jobs/ray-service-sample.yaml", R"(apiVersion: ray.io/v1
kind: RayService
metadata:
  name: test-rayservice
  namespace: default
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  serveConfigV2: |
    applications:
      - name: fruit_app
        import_path: fruit.deployment_graph
  rayClusterConfig:
    rayVersion: '2.46.0'
    headGroupSpec:
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-head
            image: rayproject/ray:2.46.0
            resources:
              limits: {cpu: 4, memory: 6Gi}
              requests: {cpu: 2, memory: 4Gi}
    workerGroupSpecs:
    - replicas: 1
      minReplicas: 1
      maxReplicas: 5
      groupName: small-group
      rayStartParams: {}
      template:
        spec:
          containers:
          - name: ray-worker
            image: rayproject/ray:2.46.0
            resources:
              limits: {cpu: 1, memory: 2Gi}
              requests: {cpu: 1, memory: 2Gi}
)",
       {"head:1", "small-group:1"}},
      {"jobs/sample-sparkapplication.yaml", R"(apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: spark-pi
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  type: Scala
  mode: cluster
  sparkVersion: 4.0.0
  image: spark:4.0.0
  mainClass: org.apache.spark.examples.SparkPi
  mainApplicationFile: local:///opt/spark/examples/jars/spark-examples.jar
  arguments:
  - "50000"
  memoryOverheadFactor: "0"
  driver:
    coreRequest: "1"
    memory: 1g
    serviceAccount: spark
  executor:
    instances: 2
    coreRequest: "1"
    memory: 1g
    deleteOnTermination: false
)",
       {"driver:1", "executor:2"}},
      {"appwrapper/pytorch-sample.yaml", R"(apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: sample-appwrapper-pytorch-job
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  components:
  - template:
      apiVersion: "kubeflow.org/v1"
      kind: PyTorchJob
      metadata:
        name: pytorch-simple
      spec:
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            restartPolicy: OnFailure
            template:
              spec:
                containers:
                - name: pytorch
                  image: example/pytorch-mnist
                  resources: {requests: {cpu: 1}}
          Worker:
            replicas: 1
            restartPolicy: OnFailure
            template:
              spec:
                containers:
                - name: pytorch
                  image: example/pytorch-mnist
                  resources: {requests: {cpu: 1}}
)",
       {"sample-appwrapper-pytorch-job-0:1", "sample-appwrapper-pytorch-job-1:1"}},
      {"appwrapper/deployment-sample.yaml", R"(apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: sample-appwrapper-deployment
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  components:
  - podSets:
    - path: "template.spec.template"
      replicas: 3
    template:
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: nginx-deployment
        labels: {app: nginx}
      spec:
        replicas: 3
        selector:
          matchLabels: {app: nginx}
        template:
          metadata:
            labels: {app: nginx}
          spec:
            containers:
            - name: nginx
              image: nginx:1.14.2
              resources: {requests: {cpu: "100m"}}
)",
       {"sample-appwrapper-deployment-0:3"}},
      {"appwrapper/leaderworkerset-sample.yaml", R"(apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: sample-appwrapper-lws
  labels:
    kueue.x-k8s.io/queue-name: user-queue
spec:
  components:
  - podSets:
    - path: "template.spec.leaderWorkerTemplate.leaderTemplate"
      replicas: 2
    - path: "template.spec.leaderWorkerTemplate.workerTemplate"
      replicas: 3
    template:
      apiVersion: leaderworkerset.x-k8s.io/v1
      kind: LeaderWorkerSet
      metadata:
        name: nginx-leaderworkerset
        labels: {app: nginx}
      spec:
        replicas: 2
        leaderWorkerTemplate:
          leaderTemplate:
            spec:
              containers:
              - name: nginx-leader
                image: nginx:1.14.2
                resources: {requests: {cpu: "100m"}}
          size: 3
          workerTemplate:
            spec:
              containers:
              - name: nginx-worker
                image: nginx:1.14.2
                resources: {requests: {cpu: "200m"}}
)",
       {"sample-appwrapper-lws-0:2", "sample-appwrapper-lws-1:3"}},
  };
  return examples;
}

// The queues of Kueue's single-clusterqueue-setup.yaml, which the examples
// use.
constexpr char kSetup[] = R"(apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default-flavor
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: cluster-queue
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: "default-flavor"
      resources:
      - name: "cpu"
        nominalQuota: 9
      - name: "memory"
        nominalQuota: 36Gi
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  namespace: "default"
  name: "user-queue"
spec:
  clusterQueue: "cluster-queue"
)";

TEST(KindsExamplesTest, DocumentationShapesLoad) {
  for (const Example& example : Examples()) {
    SCOPED_TRACE(example.name);
    auto scenario = scenario::LoadScenarioStrings({{"setup.yaml", kSetup}, {example.name, example.yaml}});
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    // Kueue's samples carry no run time: the only warning says so (serving
    // kinds, which run until deleted, are not counted).
    std::vector<std::string> other_warnings;
    for (const auto& warning : scenario->report.warnings) {
      if (warning.find("have no run time") == std::string::npos) other_warnings.push_back(warning);
    }
    EXPECT_THAT(other_warnings, IsEmpty());
    EXPECT_THAT(scenario->report.unknown_kinds, IsEmpty());
    ASSERT_EQ(scenario->clusters.front().workloads.size(), 1u);
    const model::Workload& only = scenario->clusters.front().workloads.front();
    EXPECT_EQ(scenario->report.workloads_without_duration,
              scenario::IsServingKind(scenario::WorkloadObjectKind(only)) ? 0 : 1);
    std::vector<std::string> shape;
    for (const auto& ps : scenario->clusters.front().workloads.front().pod_sets) {
      shape.push_back(ps.name + ":" + std::to_string(ps.count));
    }
    EXPECT_THAT(shape, ElementsAreArray(example.pod_sets));
  }
}

}  // namespace
}  // namespace kueuesim::scenario
