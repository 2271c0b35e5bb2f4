//! Loans: a message whose big array is a writable numpy array over the
//! memory the transport will carry — between processes, a chunk of shared
//! memory — so that the application writes its pixels once, in place, and
//! publishing copies nothing more.
//!
//! `publisher.loan(message, "data", n)` lays `message` out in lent memory
//! (hibari's [`Publisher::loan`](hibari::Publisher::loan)) with the field
//! `data` left as a hole of `n` elements, and sets `message.data` to a
//! writable numpy array over the hole (its contents are whatever the memory
//! held: fill all of it). `publisher.publish(loan)` writes the message's
//! other fields again (they may have changed since: a time stamp, say, as
//! long as the layout stays the same) and sends the bytes as they are.
//!
//! Memory safety without `unsafe`: the lent memory belongs to a
//! [`LoanMemory`], which every numpy array over it keeps alive (through its
//! `base`). A publish hands the memory to the transport, so it first makes
//! sure that nothing but the loan refers to the array any more (no variable,
//! no view, no numpy operation in flight); otherwise it raises `BufferError`
//! and sends nothing, as `multiprocessing.shared_memory` refuses to close
//! memory that is still exported. After a publish the message's array field
//! is an empty list. A loan dropped unsent gives the memory back once its
//! last array is gone.

use std::sync::{Arc, Mutex, MutexGuard};

use hibari::{PublisherLoan, Serialized};
use pyo3::exceptions::{PyBufferError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};

use crate::arrays::numpy;
use crate::encode::Encoded;
use crate::errors::hibari_error;
use crate::pieces::{assemble_into, HolePlace, HoleSpec};
use crate::schema::Schema;
use crate::view::{array_interface, typestr};

static GETREFCOUNT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

type Lent<'a> = Option<PublisherLoan<'a>>;

self_cell::self_cell!(
    /// A publisher and the bytes it lent (`None` once sent).
    struct LoanCell {
        owner: Arc<hibari::Publisher<Serialized>>,
        #[covariant]
        dependent: Lent,
    }
);

/// The lent bytes, alive while the loan or one of its arrays is.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct LoanMemory {
    cell: Mutex<LoanCell>,
}

impl LoanMemory {
    fn lock(&self) -> MutexGuard<'_, LoanCell> {
        self.cell
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `f` on the lent bytes, or returns `None` once they are sent.
    fn with_bytes<R>(&self, f: impl FnOnce(&mut [u8]) -> R) -> Option<R> {
        self.lock()
            .with_dependent_mut(|_, lent| lent.as_mut().map(|l| f(l)))
    }
}

/// One writable array inside lent memory, offered to numpy.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct LoanBuffer {
    _memory: Py<LoanMemory>,
    address: usize,
    count: usize,
    typestr: &'static str,
}

#[pymethods]
impl LoanBuffer {
    /// numpy's array interface (version 3): shape, element type, and the
    /// address of the lent bytes, writable.
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        array_interface(py, self.count, self.typestr, self.address, false)
    }
}

/// A message laid out in lent memory, its big array filled in place; send
/// it with `publisher.publish(loan)`.
#[pyclass(frozen, module = "hibari._hibari")]
pub struct Loan {
    memory: Py<LoanMemory>,
    message: Py<PyAny>,
    field: Py<PyString>,
    count: usize,
    place: HolePlace,
    len: usize,
    address: usize,
    /// The array over the hole; `None` once published.
    array: Mutex<Option<Py<PyAny>>>,
    /// How `array` shows it.
    form: ArrayForm,
}

/// How `loan.array` shows the lent array: viewed as `dtype`, reshaped to
/// `shape` (each when given).
pub(crate) struct ArrayForm {
    pub dtype: Option<Py<PyAny>>,
    pub shape: Option<Py<PyAny>>,
}

impl Loan {
    /// Lends memory from `publisher` for `message` with `field` a hole of
    /// `count` elements (see the [module](self)).
    pub(crate) fn create(
        py: Python<'_>,
        publisher: &Arc<hibari::Publisher<Serialized>>,
        schema: &Schema,
        message: &Bound<'_, PyAny>,
        field: &str,
        count: usize,
        form: ArrayForm,
    ) -> PyResult<Self> {
        let spec = HoleSpec { field, count };
        let encoded = Encoded::encode_with_hole(py, message, schema, spec)?;
        let place = encoded.hole().expect("encode_with_hole places the hole");
        let py_name = schema
            .fields
            .iter()
            .find(|f| f.name == field)
            .map(|f| f.py_name.clone_ref(py))
            .expect("the hole is a field of the schema");
        let pieces = encoded.gap_bytes()?;
        let skeleton = encoded.skeleton();
        let len = encoded.len();
        let (cell, address) = py.detach(|| {
            let mut cell = LoanCell::try_new(publisher.clone(), |p| p.loan(len).map(Some))
                .map_err(hibari_error)?;
            let address = cell.with_dependent_mut(|_, lent| {
                let bytes = lent.as_mut().expect("just lent");
                assemble_into(skeleton, &pieces, bytes);
                bytes.as_ptr() as usize + place.offset
            });
            Ok::<_, PyErr>((cell, address))
        })?;
        let memory = Py::new(
            py,
            LoanMemory {
                cell: Mutex::new(cell),
            },
        )?;
        let buffer = LoanBuffer {
            _memory: memory.clone_ref(py),
            address,
            count,
            typestr: typestr(place.element, false),
        };
        let array = numpy(py)?.call_method1(intern!(py, "asarray"), (buffer,))?;
        message.setattr(py_name.bind(py), &array)?;
        Ok(Loan {
            memory,
            message: message.clone().unbind(),
            field: py_name,
            count,
            place,
            len,
            address,
            array: Mutex::new(Some(array.unbind())),
            form,
        })
    }

    fn array_slot(&self) -> MutexGuard<'_, Option<Py<PyAny>>> {
        self.array
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends the loan through `publisher`, which must be the one that lent it.
    pub(crate) fn publish(
        &self,
        py: Python<'_>,
        publisher: &Arc<hibari::Publisher<Serialized>>,
        schema: &Schema,
    ) -> PyResult<()> {
        let owner_ok = Arc::ptr_eq(self.memory.get().lock().borrow_owner(), publisher);
        if !owner_ok {
            return Err(PyValueError::new_err(
                "this loan was made by another publisher: publish it there",
            ));
        }
        let message = self.message.bind(py);
        let field = self.field.bind(py).to_cow()?.into_owned();
        // The fields around the hole, as they are now; the layout must not move.
        let spec = HoleSpec {
            field: &field,
            count: self.count,
        };
        let encoded = Encoded::encode_with_hole(py, message, schema, spec)?;
        if encoded.len() != self.len || encoded.hole() != Some(self.place) {
            return Err(PyValueError::new_err(format!(
                "the loaned message's layout changed (now {} bytes, the array at byte {:?}; lent: \
                 {} bytes, at byte {}): strings and sequences must keep the lengths they had \
                 when it was lent",
                encoded.len(),
                encoded.hole().map(|h| h.offset),
                self.len,
                self.place.offset
            )));
        }
        // Everything that can fail before the array is taken back, so a
        // failed publish leaves the loan as it was.
        let pieces = encoded.gap_bytes()?;
        self.hand_over(py, message)?;
        let skeleton = encoded.skeleton();
        let memory = self.memory.get();
        py.detach(|| {
            let mut cell = memory.lock();
            cell.with_dependent_mut(|_, lent| {
                let mut loan = lent.take().expect("a loan is sent once");
                assemble_into(skeleton, &pieces, &mut loan);
                loan.send().map_err(|e| {
                    let err = hibari_error(&e);
                    // Refused: the loan comes back, to publish again.
                    *lent = e.into_loan();
                    err
                })
            })
        })
    }

    /// Takes the array back from the application: refuses (`BufferError`)
    /// while anything else refers to it.
    fn hand_over(&self, py: Python<'_>, message: &Bound<'_, PyAny>) -> PyResult<()> {
        // Taken out of the slot (not held locked while Python runs); put back
        // on any failure.
        let Some(array) = self.array_slot().take() else {
            return Err(PyValueError::new_err("this loan was published already"));
        };
        let array = array.into_bound(py);
        let field = self.field.bind(py);
        let outcome = (|| {
            message.setattr(field, PyList::empty(py))?;
            // `sys.getrefcount` counts its argument too. The array: `array`
            // here. The buffer: the array's `base`, and `base` here.
            let getrefcount = GETREFCOUNT.import(py, "sys", "getrefcount")?;
            let refs: isize = getrefcount.call1((&array,))?.extract::<isize>()? - 1;
            let base = array.getattr("base")?;
            let buffer_refs: isize = getrefcount.call1((&base,))?.extract::<isize>()? - 1;
            if refs != 1 || buffer_refs != 2 {
                return Err(PyBufferError::new_err(format!(
                    "the loan's array is still in use ({} other reference(s) to it or its \
                     views): del them (or fill it with `loan.data[:] = ...`) before publishing",
                    refs - 1 + (buffer_refs - 2).max(0)
                )));
            }
            Ok(())
        })();
        if outcome.is_err() {
            let _ = message.setattr(field, &array);
            *self.array_slot() = Some(array.unbind());
        }
        outcome
    }
}

#[pymethods]
impl Loan {
    /// The message; its array field is the writable array over the lent
    /// bytes until published.
    #[getter]
    fn message(&self, py: Python<'_>) -> Py<PyAny> {
        self.message.clone_ref(py)
    }

    /// The writable, flat numpy array over the lent bytes of the field.
    #[getter]
    fn data(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.array_slot()
            .as_ref()
            .map(|a| a.clone_ref(py))
            .ok_or_else(|| PyValueError::new_err("this loan was published already"))
    }

    /// The same memory as `data`, with the dtype and shape given when lent
    /// (an image's `(height, width, channels)`), or `data` itself.
    #[getter]
    fn array<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut data = self.data(py)?.into_bound(py);
        if let Some(dtype) = &self.form.dtype {
            data = data.call_method1(intern!(py, "view"), (dtype,))?;
        }
        if let Some(shape) = &self.form.shape {
            data = data.call_method1(intern!(py, "reshape"), (shape,))?;
        }
        Ok(data)
    }

    /// The address of the array's first byte (to check where it lies).
    #[getter]
    fn address(&self) -> usize {
        self.address
    }

    /// The length of the whole message in bytes.
    #[getter]
    fn size(&self) -> usize {
        self.len
    }

    /// Whether it was published.
    #[getter]
    fn published(&self) -> bool {
        self.memory.get().with_bytes(|_| ()).is_none()
    }
}
