//! How a node is created: its namespace and its parameters (rclcpp's
//! `NodeOptions`).

use crate::parameter::{ParameterOverrides, ParameterValue};

/// Options of [`Context::create_node_with_options`](crate::Context::create_node_with_options).
///
/// By default a node is in `/`, serves the parameter services, publishes
/// `/parameter_events` and its log on `/rosout`, takes the command line's parameter overrides and
/// allows only declared parameters, as in rclcpp and rclpy.
#[derive(Clone, Debug)]
#[must_use]
pub struct NodeOptions {
    pub(crate) namespace: String,
    pub(crate) start_parameter_services: bool,
    pub(crate) start_parameter_event_publisher: bool,
    pub(crate) parameter_overrides: ParameterOverrides,
    pub(crate) use_global_arguments: bool,
    pub(crate) allow_undeclared_parameters: bool,
    pub(crate) automatically_declare_parameters_from_overrides: bool,
    pub(crate) enable_rosout: bool,
}

impl Default for NodeOptions {
    fn default() -> Self {
        NodeOptions {
            namespace: "/".into(),
            start_parameter_services: true,
            start_parameter_event_publisher: true,
            parameter_overrides: ParameterOverrides::new(),
            use_global_arguments: true,
            allow_undeclared_parameters: false,
            automatically_declare_parameters_from_overrides: false,
            enable_rosout: true,
        }
    }
}

impl NodeOptions {
    /// The defaults.
    pub fn new() -> Self {
        Self::default()
    }

    /// The namespace (`/robot1`; relative is made absolute).
    pub fn namespace(mut self, namespace: &str) -> Self {
        self.namespace = namespace.into();
        self
    }

    /// Whether to serve `~/get_parameters` and the five others (default
    /// true).
    pub fn start_parameter_services(mut self, start: bool) -> Self {
        self.start_parameter_services = start;
        self
    }

    /// Whether to publish changes on `/parameter_events` (default true).
    pub fn start_parameter_event_publisher(mut self, start: bool) -> Self {
        self.start_parameter_event_publisher = start;
        self
    }

    /// An override for one parameter; it wins over the command line's.
    pub fn parameter_override(mut self, name: &str, value: impl Into<ParameterValue>) -> Self {
        self.parameter_overrides.insert(name.into(), value.into());
        self
    }

    /// Whether the command line's `-p` and `--params-file` overrides apply
    /// (default true).
    pub fn use_global_arguments(mut self, use_them: bool) -> Self {
        self.use_global_arguments = use_them;
        self
    }

    /// Whether parameters may be set (and read, as not set) without being
    /// declared (default false).
    pub fn allow_undeclared_parameters(mut self, allow: bool) -> Self {
        self.allow_undeclared_parameters = allow;
        self
    }

    /// Whether the node's logger publishes on `/rosout` (default true).
    pub fn enable_rosout(mut self, enable: bool) -> Self {
        self.enable_rosout = enable;
        self
    }

    /// Whether every override is declared at creation, dynamically typed
    /// (default false).
    pub fn automatically_declare_parameters_from_overrides(mut self, declare: bool) -> Self {
        self.automatically_declare_parameters_from_overrides = declare;
        self
    }
}
