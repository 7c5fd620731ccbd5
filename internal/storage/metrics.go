package storage

import "fmt"

// Metrics is a snapshot of the store's state, for serverStatus, INFO and
// /metrics. It is a plain struct: the server decides how to export it.
type Metrics struct {
	DiskSpaceUsage     uint64 // bytes of every file in the data directory
	MemTableSize       uint64 // bytes held by memtables
	MemTableCount      int64
	WALFiles           int64
	WALSize            uint64 // live bytes in the write-ahead log
	WALPhysicalSize    uint64 // bytes on disk of the write-ahead log files
	WALBytesWritten    uint64
	TableCount         int64  // sstables in all levels
	TableSize          int64  // bytes of sstables in all levels
	ReadAmp            int    // sstables a read may have to consult
	Flushes            int64  // flushes since open
	Compactions        int64  // compactions since open
	CompactionDebt     uint64 // estimated bytes to compact to reach a stable shape
	CompactionsRunning int64
	LoweredCompactions int64 // compactions run at low priority (Options.LowPriorityCompactions)
	BlockCacheSize     int64
	BlockCacheHits     int64
	BlockCacheMisses   int64
	Purge              PurgeStats // the physical purge (purge.go)
}

// Metrics returns the store's current metrics.
func (s *Store) Metrics() Metrics {
	m := s.db.Metrics()
	total := m.Total()
	return Metrics{
		DiskSpaceUsage:     m.DiskSpaceUsage(),
		MemTableSize:       m.MemTable.Size,
		MemTableCount:      m.MemTable.Count,
		WALFiles:           m.WAL.Files,
		WALSize:            m.WAL.Size,
		WALPhysicalSize:    m.WAL.PhysicalSize,
		WALBytesWritten:    m.WAL.BytesWritten,
		TableCount:         total.TablesCount,
		TableSize:          total.TablesSize,
		ReadAmp:            m.ReadAmp(),
		Flushes:            m.Flush.Count,
		Compactions:        m.Compact.Count,
		CompactionDebt:     m.Compact.EstimatedDebt,
		CompactionsRunning: m.Compact.NumInProgress,
		BlockCacheSize:     m.BlockCache.Size,
		BlockCacheHits:     m.BlockCache.Hits,
		BlockCacheMisses:   m.BlockCache.Misses,
		Purge:              s.purge.snapshot(),
		LoweredCompactions: s.loweredCompactions(),
	}
}

func (s *Store) loweredCompactions() int64 {
	if s.compactions == nil {
		return 0
	}
	return s.compactions.lowered.Load()
}

// String renders the metrics on one line per figure.
func (m Metrics) String() string {
	return fmt.Sprintf("disk=%d memtable=%d/%d wal=%d files/%d bytes tables=%d/%d bytes read-amp=%d flushes=%d compactions=%d debt=%d",
		m.DiskSpaceUsage, m.MemTableCount, m.MemTableSize, m.WALFiles, m.WALPhysicalSize,
		m.TableCount, m.TableSize, m.ReadAmp, m.Flushes, m.Compactions, m.CompactionDebt)
}
