//! The places of the image uploads in progress: at most `max_uploads` in all (each holds at
//! most its body cap of memory), and at most half of them (at least one) for one project, so
//! that one project's uploads, however slow or many, leave places for the others.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use blogread_core::domain::ProjectId;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Why no place was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoPlace {
    /// Every place is taken.
    Full,
    /// The project holds its share already (the share).
    ProjectFull(usize),
}

/// The places of the uploads in progress.
#[derive(Debug, Clone)]
pub struct UploadPlaces {
    all: Arc<Semaphore>,
    share: usize,
    taken: Arc<Mutex<HashMap<ProjectId, usize>>>,
}

/// One upload's place, given back when dropped.
#[derive(Debug)]
pub struct UploadPlace {
    _place: OwnedSemaphorePermit,
    project: ProjectId,
    taken: Arc<Mutex<HashMap<ProjectId, usize>>>,
}

/// The places one project may hold of `total`: half, rounded up.
pub fn project_share(total: usize) -> usize {
    total.max(1).div_ceil(2)
}

fn lock(taken: &Mutex<HashMap<ProjectId, usize>>) -> MutexGuard<'_, HashMap<ProjectId, usize>> {
    // Every update is one insert or remove: the map stays consistent after a panic.
    taken
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl UploadPlaces {
    /// `total` places (at least 1), [`project_share`] of them for any one project.
    pub fn new(total: usize) -> Self {
        UploadPlaces {
            all: Arc::new(Semaphore::new(total.max(1))),
            share: project_share(total),
            taken: Arc::default(),
        }
    }

    /// A place for an upload to `project`, if one is free and the project holds fewer than
    /// its share (when neither, [`NoPlace::Full`]).
    pub fn take(&self, project: ProjectId) -> Result<UploadPlace, NoPlace> {
        let mut taken = lock(&self.taken);
        let held = taken.get(&project).copied().unwrap_or(0);
        // When every place is taken, that is what the caller is told, whoever holds them.
        if self.all.available_permits() == 0 {
            return Err(NoPlace::Full);
        }
        if held >= self.share {
            return Err(NoPlace::ProjectFull(self.share));
        }
        let place = Arc::clone(&self.all)
            .try_acquire_owned()
            .map_err(|_| NoPlace::Full)?;
        taken.insert(project, held + 1);
        Ok(UploadPlace {
            _place: place,
            project,
            taken: Arc::clone(&self.taken),
        })
    }
}

impl Drop for UploadPlace {
    fn drop(&mut self) {
        let mut taken = lock(&self.taken);
        match taken.get_mut(&self.project) {
            Some(held) if *held > 1 => *held -= 1,
            _ => {
                taken.remove(&self.project);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(n: u8) -> ProjectId {
        format!("0192d1a4-7b1c-7cc3-9f7e-2b6a0c1d2e{n:02x}")
            .parse()
            .expect("a project id")
    }

    #[test]
    fn a_project_holds_at_most_half_the_places_rounded_up() {
        assert_eq!(project_share(0), 1);
        assert_eq!(project_share(1), 1);
        assert_eq!(project_share(2), 1);
        assert_eq!(project_share(4), 2);
        assert_eq!(project_share(5), 3);
        let places = UploadPlaces::new(4);
        let a = [places.take(project(1)), places.take(project(1))];
        assert!(a.iter().all(Result::is_ok));
        assert_eq!(
            places.take(project(1)).unwrap_err(),
            NoPlace::ProjectFull(2)
        );
        // The others' places are still there.
        let b = [places.take(project(2)), places.take(project(3))];
        assert!(b.iter().all(Result::is_ok));
        assert_eq!(places.take(project(4)).unwrap_err(), NoPlace::Full);
    }

    #[test]
    fn a_place_dropped_is_given_back_to_its_project_and_to_all() {
        let places = UploadPlaces::new(2);
        let first = places.take(project(1)).expect("a place");
        assert_eq!(
            places.take(project(1)).unwrap_err(),
            NoPlace::ProjectFull(1)
        );
        let other = places.take(project(2)).expect("the other place");
        assert_eq!(places.take(project(3)).unwrap_err(), NoPlace::Full);
        drop(first);
        let again = places.take(project(1)).expect("the place is back");
        drop((again, other));
        assert!(lock(&places.taken).is_empty(), "nothing is left counted");
        assert_eq!(places.all.available_permits(), 2);
    }

    #[test]
    fn a_single_place_is_the_share_of_any_project() {
        let places = UploadPlaces::new(1);
        let held = places.take(project(1)).expect("the place");
        assert_eq!(places.take(project(2)).unwrap_err(), NoPlace::Full);
        drop(held);
        assert!(places.take(project(2)).is_ok());
    }
}
