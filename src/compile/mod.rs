//! The core IR compiled to a matcher program.
