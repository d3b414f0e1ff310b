//! Hyperslabs.

use std::fmt;

/// A region that does not fit its array.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegionError {
    /// The region and the array have different ranks.
    #[error("region of rank {region} does not fit an array of rank {array}")]
    Rank {
        /// The region's rank.
        region: usize,
        /// The array's rank.
        array: usize,
    },
    /// A stride of 0.
    #[error("stride 0 in dimension {dim}")]
    ZeroStride {
        /// The dimension.
        dim: usize,
    },
    /// The last index selected overflows.
    #[error("region overflows in dimension {dim}")]
    Overflow {
        /// The dimension.
        dim: usize,
    },
    /// An index selected is past the end of a dimension.
    #[error("index {last} is outside dimension {dim} of length {len} (start {start}, count {count}, stride {stride})")]
    Outside {
        /// The last index selected.
        last: u64,
        /// The dimension.
        dim: usize,
        /// Its length.
        len: u64,
        /// The region's start along it.
        start: u64,
        /// The region's count along it.
        count: u64,
        /// The region's stride along it.
        stride: u64,
    },
}

/// A hyperslab: for each dimension the indices `start + k*stride`, `k < count`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// First index per dimension.
    pub start: Vec<u64>,
    /// Number of indices per dimension.
    pub count: Vec<u64>,
    /// Step per dimension (at least 1).
    pub stride: Vec<u64>,
}

impl Region {
    /// The whole of an array of `shape`.
    pub fn whole(shape: &[u64]) -> Region {
        Region {
            start: vec![0; shape.len()],
            count: shape.to_vec(),
            stride: vec![1; shape.len()],
        }
    }

    /// A contiguous block.
    pub fn block(start: Vec<u64>, count: Vec<u64>) -> Region {
        let stride = vec![1; start.len()];
        Region {
            start,
            count,
            stride,
        }
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.start.len()
    }

    /// Number of elements selected (1 for a scalar), or `None` on overflow.
    pub fn len(&self) -> Option<u64> {
        self.count
            .iter()
            .try_fold(1u64, |acc, &c| acc.checked_mul(c))
    }

    /// True when the region selects nothing.
    pub fn is_empty(&self) -> bool {
        self.count.contains(&0)
    }

    /// Check the region against an array of `shape`: ranks agree, strides are
    /// positive and every selected index is inside the shape.
    ///
    /// # Errors
    /// [`RegionError`] naming the first dimension that is out of bounds.
    pub fn check(&self, shape: &[u64]) -> Result<(), RegionError> {
        if self.count.len() != self.rank()
            || self.stride.len() != self.rank()
            || self.rank() != shape.len()
        {
            return Err(RegionError::Rank {
                region: self.rank(),
                array: shape.len(),
            });
        }
        for (dim, &len) in shape.iter().enumerate() {
            if self.stride[dim] == 0 {
                return Err(RegionError::ZeroStride { dim });
            }
            if self.count[dim] == 0 {
                continue;
            }
            let last = (self.count[dim] - 1)
                .checked_mul(self.stride[dim])
                .and_then(|x| x.checked_add(self.start[dim]))
                .ok_or(RegionError::Overflow { dim })?;
            if last >= len {
                return Err(RegionError::Outside {
                    last,
                    dim,
                    len,
                    start: self.start[dim],
                    count: self.count[dim],
                    stride: self.stride[dim],
                });
            }
        }
        Ok(())
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for d in 0..self.rank() {
            if d > 0 {
                f.write_str(", ")?;
            }
            write!(
                f,
                "{}:{}",
                self.start[d],
                self.start[d] + self.count[d] * self.stride[d]
            )?;
            if self.stride[d] != 1 {
                write!(f, ":{}", self.stride[d])?;
            }
        }
        f.write_str("]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_bounds() {
        assert!(Region::whole(&[3, 4]).check(&[3, 4]).is_ok());
        let r = Region {
            start: vec![1],
            count: vec![3],
            stride: vec![2],
        };
        assert_eq!(r.check(&[6]), Ok(()));
        assert!(r
            .check(&[5])
            .unwrap_err()
            .to_string()
            .contains("index 5 is outside dimension 0 of length 5"));
        assert!(Region::whole(&[]).check(&[]).is_ok());
        assert_eq!(Region::whole(&[]).len(), Some(1));
        assert_eq!(r.to_string(), "[1:7:2]");
    }
}

/// The C-order offsets in an array of `shape` of the elements of `region` (checked
/// against the shape first), in the region's own C order.
pub fn region_offsets<'a>(shape: &'a [u64], region: &'a Region) -> impl Iterator<Item = u64> + 'a {
    let n = region.len().unwrap_or(0);
    let mut index = vec![0u64; region.rank()];
    (0..n).map(move |k| {
        if k > 0 {
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < region.count[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        index.iter().enumerate().fold(0u64, |at, (d, &i)| {
            at * shape[d] + region.start[d] + i * region.stride[d]
        })
    })
}

#[cfg(test)]
mod offsets_tests {
    use super::*;

    #[test]
    fn offsets_follow_c_order_with_strides() {
        let r = Region {
            start: vec![1, 0],
            count: vec![2, 2],
            stride: vec![1, 2],
        };
        let got: Vec<u64> = region_offsets(&[3, 4], &r).collect();
        assert_eq!(got, [4, 6, 8, 10]);
        assert_eq!(
            region_offsets(&[], &Region::whole(&[])).collect::<Vec<_>>(),
            [0]
        );
    }
}
