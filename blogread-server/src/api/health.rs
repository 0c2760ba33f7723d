//! `GET /healthz`: 200 when the database answers, 503 otherwise.

use blogread_core::Service;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::common::{ApiTags, Ok200};
use crate::error::{self, ApiError, Reply, error_chain, reply};

/// Health.
#[derive(Debug, Clone, Object)]
pub struct HealthStatus {
    /// `ok`.
    pub status: String,
}

/// Health check.
pub struct HealthApi {
    pub(crate) service: Service,
}

#[OpenApi(tag = "ApiTags::Operations")]
impl HealthApi {
    /// Health check
    ///
    /// 200 `{"status":"ok"}` when the database answers, 503 otherwise.
    #[oai(path = "/healthz", method = "get", operation_id = "health")]
    async fn health(&self) -> Reply<Ok200<HealthStatus>, error::Health> {
        reply(async {
            self.service.health().await.map_err(|e| {
                let request_id = crate::request_id::current_request_id();
                tracing::error!(request_id = %request_id, error = %error_chain(&e), "health check failed");
                ApiError::new(
                    poem::http::StatusCode::SERVICE_UNAVAILABLE,
                    format!("the database does not answer (request id {request_id})"),
                )
            })?;
            Ok(Ok200::Ok(Json(HealthStatus {
                status: "ok".into(),
            })))
        })
        .await
    }
}
