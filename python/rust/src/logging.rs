//! Loggers for Python: `hibari.logging.RcutilsLogger` (rclpy's logger) is
//! a thin layer over these, which write through the Rust runtime's loggers
//! (`hibari::logging`): the same console format, levels and `/rosout`.
//! Levels cross as rcutils' numbers (10 DEBUG … 50 FATAL, 0 unset).

use hibari::logging::{Location, Severity};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::runtime::Node;

fn severity(level: u8) -> PyResult<Severity> {
    Severity::from_level(level).ok_or_else(|| {
        PyValueError::new_err(format!("{level} is not a log level (10 DEBUG … 50 FATAL)"))
    })
}

/// A named logger.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Logger {
    inner: hibari::logging::Logger,
}

#[pymethods]
impl Logger {
    /// The logger of `node` (publishing on `/rosout`).
    #[new]
    fn new(node: &Node) -> Self {
        Logger {
            inner: node.inner.get_logger().clone(),
        }
    }

    /// A logger of its own, to the console only (`rclpy.logging.get_logger`).
    #[staticmethod]
    fn named(name: &str) -> Self {
        Logger {
            inner: hibari::logging::get_logger(name),
        }
    }

    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn get_child(&self, suffix: &str) -> Self {
        Logger {
            inner: self.inner.get_child(suffix),
        }
    }

    /// Sets the level (0: inherit again).
    fn set_level(&self, level: u8) -> PyResult<()> {
        let level = match level {
            0 => None,
            l => Some(severity(l)?),
        };
        self.inner.set_level(level);
        Ok(())
    }

    fn get_effective_level(&self) -> u8 {
        self.inner.effective_level() as u8
    }

    fn is_enabled_for(&self, level: u8) -> PyResult<bool> {
        Ok(self.inner.is_enabled_for(severity(level)?))
    }

    /// Writes a record if `level` is enabled; whether it did.
    fn log(
        &self,
        py: Python<'_>,
        level: u8,
        message: &str,
        file: &str,
        function: &str,
        line: u32,
    ) -> PyResult<bool> {
        let s = severity(level)?;
        if !self.inner.is_enabled_for(s) {
            return Ok(false);
        }
        let at = Location {
            file,
            function,
            line,
        };
        let logger = &self.inner;
        py.detach(|| logger.log_at(s, at, format_args!("{message}")));
        Ok(true)
    }
}
